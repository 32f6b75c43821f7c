// CertificateSigningRequests: a PEM-encoded PKCS#10 request whose signature holds, usages listed
// once each, a well-formed signer name and a sensible requested duration.
import { createPublicKey, verify, X509Certificate } from "node:crypto";
import type { Naming } from "../../naming/naming.ts";
import { type FieldError, field } from "../../registry/field-error.ts";
import { isDNS1123Label, isDNS1123Subdomain } from "../../validation/names.ts";
import { arr, describeDiff, type Json, num, objOrEmpty, semanticEqual, str } from "./util.ts";

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

// ---- status.certificate ----------------------------------------------------------------------

const PEM_BLOCKS = /-----BEGIN ([^-\r\n]*)-----\r?\n([\s\S]*?)-----END \1-----/g;

/** The problem with status.certificate's PEM text, or undefined (empty counts as fine). */
export function certificateProblem(pem: Buffer): string | undefined {
  if (pem.length === 0) return undefined;
  let blocks = 0;
  for (const m of pem.toString("latin1").matchAll(PEM_BLOCKS)) {
    const [, type, body] = m as unknown as [string, string, string];
    if (type !== "CERTIFICATE")
      return `only CERTIFICATE PEM blocks are allowed, found ${JSON.stringify(type)}`;
    if (/^[^\r\n]*:/.test(body)) return "no PEM block headers are permitted";
    blocks++;
    try {
      new X509Certificate(Buffer.from(body.replace(/[^A-Za-z0-9+/=]/g, ""), "base64"));
    } catch {
      return "x509: malformed certificate";
    }
  }
  return blocks === 0 ? "must contain at least one CERTIFICATE PEM block" : undefined;
}

// ---- the kind ---------------------------------------------------------------------------------

const TRUE_ONLY = new Set(["Approved", "Denied", "Failed"]);
const ALL_STATUS = ["False", "True", "Unknown"];

interface Options {
  /** The approval subresource: Approved and Denied may be added. */
  readonly approval?: boolean;
  /** The status subresource: status.certificate may be set (once). */
  readonly status?: boolean;
}

function conditionsOf(object: Json): Json[] {
  return arr(objOrEmpty(object.status).conditions).map((c) => objOrEmpty(c));
}

function certificateOf(object: Json): string {
  return str(objOrEmpty(object.status).certificate);
}

/** Conditions: types set, statuses known (True for the well-known ones), no repeats, not both Approved and Denied. */
function validateConditions(errs: FieldError[], object: Json, old: Json | undefined): void {
  const oldConditions = old ? conditionsOf(old) : [];
  const oldTypes = oldConditions.map((c) => str(c.type));
  // Problems already stored are tolerated, as upstream does for compatibility.
  const allowBoth = oldTypes.includes("Approved") && oldTypes.includes("Denied");
  const allowDuplicates = new Set(oldTypes).size !== oldTypes.length;
  const allowEmptyType = oldTypes.includes("");
  const seen = new Set<string>();
  let approved = false;
  let denied = false;
  conditionsOf(object).forEach((c, i) => {
    const path = `status.conditions[${i}]`;
    const type = str(c.type);
    const status = str(c.status);
    if (type === "" && !allowEmptyType) errs.push(field.required(`${path}.type`));
    const allowed = TRUE_ONLY.has(type) ? ["True"] : ALL_STATUS;
    if (status === "") errs.push(field.required(`${path}.status`));
    else if (!allowed.includes(status)) errs.push(field.notSupported(`${path}.status`, status, allowed));
    if (!allowBoth) {
      if (type === "Approved") approved = true;
      if (type === "Denied") denied = true;
      if ((type === "Approved" && denied) || (type === "Denied" && approved))
        errs.push(
          field.invalid(`${path}.type`, type, "Approved and Denied conditions are mutually exclusive"),
        );
    }
    if (!allowDuplicates && seen.has(type)) errs.push(field.duplicate(`${path}.type`, type));
    seen.add(type);
  });
}

function validateCsr(object: Json, old: Json | undefined, naming: Naming): FieldError[] {
  const errs: FieldError[] = [];
  const spec = objOrEmpty(object.spec);
  // request and signerName are required: the schema reports them absent.
  const request = str(spec.request);
  const problem = spec.request === undefined ? undefined : csrProblem(Buffer.from(request, "base64"));
  if (problem !== undefined) errs.push(field.invalid("spec.request", request, problem));
  const usages = arr(spec.usages);
  if (usages.length === 0) errs.push(field.required("spec.usages"));
  const oldUsages = old ? arr(objOrEmpty(old.spec).usages) : [];
  const seen = new Set<string>();
  if (new Set(oldUsages).size === oldUsages.length) {
    for (let i = 0; i < usages.length; i++) {
      const u = str(usages[i]);
      if (seen.has(u)) errs.push(field.duplicate(`spec.usages[${i}]`, u));
      seen.add(u);
    }
  }
  const signer = str(spec.signerName);
  const legacy = naming.label("legacy-unknown");
  const oldSigner = old ? str(objOrEmpty(old.spec).signerName) : undefined;
  if (signer === legacy && oldSigner !== legacy)
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
  validateConditions(errs, object, old);
  const certificate = certificateOf(object);
  const unchanged = old !== undefined && certificate === certificateOf(old);
  const storedBad =
    old !== undefined && certificateProblem(Buffer.from(certificateOf(old), "base64")) !== undefined;
  if (!unchanged && !storedBad) {
    const bad = certificateProblem(Buffer.from(certificate, "base64"));
    if (bad !== undefined) errs.push(field.invalid("status.certificate", "<certificate data>", bad));
  }
  return errs;
}

export function validateCertificateSigningRequest(object: Json, naming: Naming): FieldError[] {
  return validateCsr(object, undefined, naming);
}

/**
 * An update: of the main resource, or of the `approval` or `status` subresource. Approved, Denied
 * and Failed conditions are never removed; only approval adds or changes Approved and Denied; only
 * status sets the certificate, once, and only on an approved request.
 */
export function validateCertificateSigningRequestUpdate(
  object: Json,
  old: Json,
  naming: Naming,
  options: Options = {},
): FieldError[] {
  const errs = validateCsr(object, old, naming);
  const typesOf = (o: Json, type: string) => conditionsOf(o).filter((c) => str(c.type) === type);
  for (const type of ["Approved", "Denied", "Failed"]) {
    if (typesOf(object, type).length < typesOf(old, type).length)
      errs.push(
        field.forbidden(
          "status.conditions",
          `updates may not remove a condition of type ${JSON.stringify(type)}`,
        ),
      );
  }
  if (!options.approval) {
    for (const type of ["Approved", "Denied"]) {
      const now = typesOf(object, type);
      const before = typesOf(old, type);
      if (now.length > before.length)
        errs.push(
          field.forbidden(
            "status.conditions",
            `updates may not add a condition of type ${JSON.stringify(type)}`,
          ),
        );
      else if (now.length === before.length && !semanticEqual(now, before))
        errs.push(
          field.forbidden(
            "status.conditions",
            `updates may not modify a condition of type ${JSON.stringify(type)}\n${describeDiff(before, now, "")}`,
          ),
        );
    }
  }
  const certificate = certificateOf(object);
  if (certificate !== certificateOf(old)) {
    if (!options.status)
      errs.push(field.forbidden("status.certificate", "updates may not set certificate content"));
    else if (certificateOf(old) !== "")
      errs.push(field.forbidden("status.certificate", "updates may not modify existing certificate content"));
    else if (typesOf(object, "Approved").length === 0)
      // Beyond upstream, which leaves this to signers: no certificate for a request nobody approved.
      errs.push(
        field.forbidden("status.certificate", "a certificate may only be set on an approved request"),
      );
  }
  return errs;
}
