// CertificateSigningRequests: a PEM-encoded PKCS#10 request whose signature holds, usages listed
// once each, a well-formed signer name and a sensible requested duration.
import { createPublicKey, verify } from "node:crypto";
import type { Naming } from "../../naming/naming.ts";
import { type FieldError, field } from "../../registry/field-error.ts";
import { isDNS1123Label, isDNS1123Subdomain } from "../../validation/names.ts";
import { arr, type Json, num, objOrEmpty, str } from "./util.ts";

const MAX_DOMAIN = 253;
const MAX_SIGNER_NAME = MAX_DOMAIN + (253 + 63 + 1) + 1;

/** `<domain>/<path>`: the domain has two or more DNS labels, the path dot-separated subdomains. */
export function validateSignerName(errs: FieldError[], signerName: string, path: string): void {
  if (signerName === "") {
    errs.push(field.required(path));
    return;
  }
  const segments = signerName.split("/");
  if (segments.length !== 2) {
    errs.push(
      field.invalid(
        path,
        signerName,
        "must be a fully qualified domain and path of the form 'example.com/signer-name'",
      ),
    );
    return;
  }
  const [domain, rest] = segments as [string, string];
  if (domain.length > MAX_DOMAIN) errs.push(field.tooLong(path, MAX_DOMAIN));
  const labels = domain.split(".");
  for (const label of labels) {
    const msgs = isDNS1123Label(label);
    if (msgs.length > 0) {
      for (const msg of msgs)
        errs.push(field.invalid(path, domain, `validating label ${JSON.stringify(label)}: ${msg}`));
      break;
    }
  }
  if (labels.length < 2)
    errs.push(field.invalid(path, domain, "should be a domain with at least two segments separated by dots"));
  for (const part of rest.split(".")) {
    const msgs = isDNS1123Subdomain(part);
    if (msgs.length > 0) {
      for (const msg of msgs)
        errs.push(field.invalid(path, rest, `validating label ${JSON.stringify(part)}: ${msg}`));
      break;
    }
  }
  if (signerName.length > MAX_SIGNER_NAME) errs.push(field.tooLong(path, MAX_SIGNER_NAME));
}

// ---- PKCS#10 ----------------------------------------------------------------------------------

interface Der {
  readonly tag: number;
  /** Offset of the whole element (tag included) and of its contents. */
  readonly start: number;
  readonly contentStart: number;
  readonly end: number;
}

function readDer(buf: Buffer, at: number, limit: number): Der | undefined {
  if (at + 2 > limit) return undefined;
  const tag = buf[at]!;
  let len = buf[at + 1]!;
  let p = at + 2;
  if (len & 0x80) {
    const bytes = len & 0x7f;
    if (bytes === 0 || bytes > 4 || p + bytes > limit) return undefined;
    len = 0;
    for (let i = 0; i < bytes; i++) len = len * 256 + buf[p + i]!;
    p += bytes;
  }
  if (p + len > limit) return undefined;
  return { tag, start: at, contentStart: p, end: p + len };
}

function children(buf: Buffer, parent: Der): Der[] | undefined {
  const out: Der[] = [];
  let at = parent.contentStart;
  while (at < parent.end) {
    const d = readDer(buf, at, parent.end);
    if (!d) return undefined;
    out.push(d);
    at = d.end;
  }
  return out;
}

function oidText(buf: Buffer, d: Der): string {
  const bytes = buf.subarray(d.contentStart, d.end);
  if (bytes.length === 0) return "";
  const parts = [Math.floor(bytes[0]! / 40), bytes[0]! % 40];
  let v = 0;
  for (let i = 1; i < bytes.length; i++) {
    v = v * 128 + (bytes[i]! & 0x7f);
    if (!(bytes[i]! & 0x80)) {
      parts.push(v);
      v = 0;
    }
  }
  return parts.join(".");
}

/** Signature algorithms by OID: the digest node's verify needs (null for Ed25519). */
const SIGNATURE_DIGESTS: Readonly<Record<string, string | null>> = {
  "1.2.840.113549.1.1.5": "sha1",
  "1.2.840.113549.1.1.11": "sha256",
  "1.2.840.113549.1.1.12": "sha384",
  "1.2.840.113549.1.1.13": "sha512",
  "1.2.840.10045.4.1": "sha1",
  "1.2.840.10045.4.3.2": "sha256",
  "1.2.840.10045.4.3.3": "sha384",
  "1.2.840.10045.4.3.4": "sha512",
  "1.3.101.112": null,
};

const PEM = /-----BEGIN ([A-Z0-9 ]+)-----\r?\n([\s\S]*?)-----END \1-----/;

/** The problem with a CSR's PEM text, or undefined when it parses and its signature verifies. */
export function csrProblem(pem: Buffer): string | undefined {
  const m = PEM.exec(pem.toString("latin1"));
  if (m?.[1] !== "CERTIFICATE REQUEST") return "PEM block type must be CERTIFICATE REQUEST";
  const der = Buffer.from((m[2] ?? "").replace(/[^A-Za-z0-9+/=]/g, ""), "base64");
  const malformed = "x509: malformed certificate request";
  const top = readDer(der, 0, der.length);
  if (top?.tag !== 0x30 || top.end !== der.length) return malformed;
  const parts = children(der, top);
  if (parts?.length !== 3) return malformed;
  const [info, algorithm, signature] = parts as [Der, Der, Der];
  if (info.tag !== 0x30 || algorithm.tag !== 0x30 || signature.tag !== 0x03) return malformed;
  const infoParts = children(der, info);
  const spki = infoParts?.[2];
  if (!infoParts || !spki || spki.tag !== 0x30) return malformed;
  const algParts = children(der, algorithm);
  const oid = algParts?.[0];
  if (oid?.tag !== 0x06) return malformed;
  const digest = SIGNATURE_DIGESTS[oidText(der, oid)];
  // Algorithms not listed here (RSA-PSS, ...) are taken on trust rather than refused.
  if (digest === undefined) return undefined;
  try {
    const key = createPublicKey({ key: der.subarray(spki.start, spki.end), format: "der", type: "spki" });
    const sig = der.subarray(signature.contentStart + 1, signature.end);
    const ok = verify(digest, der.subarray(info.start, info.end), key, sig);
    if (!ok)
      return key.asymmetricKeyType === "ec"
        ? "x509: ECDSA verification failure"
        : "crypto/rsa: verification error";
  } catch {
    return malformed;
  }
  return undefined;
}

// ---- the kind ---------------------------------------------------------------------------------

export function validateCertificateSigningRequest(object: Json, naming: Naming): FieldError[] {
  const errs: FieldError[] = [];
  const spec = objOrEmpty(object.spec);
  // request and signerName are required: the schema reports them absent.
  const request = str(spec.request);
  const problem = spec.request === undefined ? undefined : csrProblem(Buffer.from(request, "base64"));
  if (problem !== undefined) errs.push(field.invalid("spec.request", request, problem));
  const usages = arr(spec.usages);
  if (usages.length === 0) errs.push(field.required("spec.usages"));
  const seen = new Set<string>();
  for (let i = 0; i < usages.length; i++) {
    const u = str(usages[i]);
    if (seen.has(u)) errs.push(field.duplicate(`spec.usages[${i}]`, u));
    seen.add(u);
  }
  const signer = str(spec.signerName);
  if (signer === naming.label("legacy-unknown"))
    errs.push(
      field.invalid("spec.signerName", signer, "the legacy signerName is not allowed via this API version"),
    );
  else if (spec.signerName !== undefined) validateSignerName(errs, signer, "spec.signerName");
  const expiration = num(spec.expirationSeconds);
  if (expiration !== undefined && expiration < 600)
    errs.push(
      field.invalid(
        "spec.expirationSeconds",
        expiration,
        "may not specify a duration less than 600 seconds (10 minutes)",
      ),
    );
  return errs;
}
