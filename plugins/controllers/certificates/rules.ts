// What the built-in signers accept (upstream's per-signer rules and messages, which become the
// Failed condition's message), and how a CSR object's request and state are read.
import "reflect-metadata"; // @peculiar/x509's dependency injection needs the Reflect polyfill
import * as x509 from "@peculiar/x509";
import type { Naming } from "../../../backends/naming/index.ts";
import { signerNames } from "../../authorization/rbac/index.ts";

export type Csr = Record<string, unknown> & {
  metadata: { name: string; uid?: string; resourceVersion?: string; creationTimestamp?: string };
  spec?: {
    request?: string;
    signerName?: string;
    usages?: string[];
    expirationSeconds?: number;
    username?: string;
    uid?: string;
    groups?: string[];
    extra?: Record<string, string[]>;
  };
  status?: {
    certificate?: string;
    conditions?: {
      type?: string;
      status?: string;
      reason?: string;
      message?: string;
      lastUpdateTime?: string;
    }[];
  };
};

/** The request's PKCS#10, or undefined when it does not parse (validation refuses those). */
export function parseRequest(csr: Csr): x509.Pkcs10CertificateRequest | undefined {
  try {
    return new x509.Pkcs10CertificateRequest(
      Buffer.from(csr.spec?.request ?? "", "base64").toString("latin1"),
    );
  } catch {
    return undefined;
  }
}

export function hasCondition(csr: Csr, type: string): boolean {
  return (csr.status?.conditions ?? []).some((c) => c.type === type && c.status === "True");
}

/** The request's subjectAltName extension, if it asks for one. */
export function subjectAltNames(
  request: x509.Pkcs10CertificateRequest,
): x509.SubjectAlternativeNameExtension | undefined {
  const ext = request.extensions.find((e) => e.type === "2.5.29.17");
  return ext ? new x509.SubjectAlternativeNameExtension(ext.rawData) : undefined;
}

interface Names {
  readonly dns: number;
  readonly ip: number;
  readonly email: number;
  readonly uri: number;
}

function altNames(request: x509.Pkcs10CertificateRequest): Names {
  const items = subjectAltNames(request)?.names.items ?? [];
  const count = (type: string) => items.filter((n) => n.type === type).length;
  return { dns: count("dns"), ip: count("ip"), email: count("email"), uri: count("url") };
}

function sameSet(a: readonly string[], b: readonly string[]): boolean {
  const sa = new Set(a);
  const sb = new Set(b);
  return sa.size === sb.size && [...sa].every((x) => sb.has(x));
}

const NODE_PREFIX = "system:node:";
const NODES_GROUP = "system:nodes";

function organizationIsNodes(request: x509.Pkcs10CertificateRequest): boolean {
  const orgs = request.subjectName.getField("O");
  return orgs.length === 1 && orgs[0] === NODES_GROUP;
}

function commonName(request: x509.Pkcs10CertificateRequest): string {
  return request.subjectName.getField("CN")[0] ?? "";
}

/** A node's client certificate request: the problem, or undefined when it is one. */
export function kubeletClientProblem(
  request: x509.Pkcs10CertificateRequest,
  usages: readonly string[],
): string | undefined {
  if (!organizationIsNodes(request)) return "subject organization is not system:nodes";
  const names = altNames(request);
  if (names.dns > 0) return "DNS subjectAltNames are not allowed";
  if (names.email > 0) return "Email subjectAltNames are not allowed";
  if (names.ip > 0) return "IP subjectAltNames are not allowed";
  if (names.uri > 0) return "URI subjectAltNames are not allowed";
  if (!commonName(request).startsWith(NODE_PREFIX))
    return "subject common name does not begin with system:node:";
  // Keys other than RSA do not encipher: key encipherment may be left out.
  if (
    !sameSet(usages, ["digital signature", "key encipherment", "client auth"]) &&
    !sameSet(usages, ["digital signature", "client auth"])
  )
    return "usages did not match [client auth digital signature key encipherment]";
  return undefined;
}

function kubeletServingProblem(
  request: x509.Pkcs10CertificateRequest,
  usages: readonly string[],
): string | undefined {
  if (!organizationIsNodes(request)) return "subject organization is not system:nodes";
  const names = altNames(request);
  if (names.dns === 0 && names.ip === 0) return "DNS or IP subjectAltName is required";
  if (names.email > 0) return "Email subjectAltNames are not allowed";
  if (names.uri > 0) return "URI subjectAltNames are not allowed";
  if (
    !sameSet(usages, ["digital signature", "key encipherment", "server auth"]) &&
    !sameSet(usages, ["digital signature", "server auth"])
  )
    return "usages did not match [digital signature key encipherment server auth]";
  if (!commonName(request).startsWith(NODE_PREFIX))
    return "subject common name does not begin with system:node:";
  return undefined;
}

function apiserverClientProblem(usages: readonly string[]): string | undefined {
  let clientAuth = false;
  for (const u of usages) {
    if (u === "client auth") clientAuth = true;
    else if (u !== "digital signature" && u !== "key encipherment")
      return `invalid usage for client certificate: ${u}`;
  }
  return clientAuth ? undefined : "invalid usage for client certificate: missing required usage: client auth";
}

/** The built-in signers this controller signs for (legacy-unknown is never signed). */
export type BuiltinSigner = "apiserverClient" | "apiserverClientKubelet" | "kubeletServing";

export function builtinSigner(naming: Naming, signerName: string): BuiltinSigner | undefined {
  const names = signerNames(naming);
  if (signerName === names.apiserverClient) return "apiserverClient";
  if (signerName === names.apiserverClientKubelet) return "apiserverClientKubelet";
  if (signerName === names.kubeletServing) return "kubeletServing";
  return undefined;
}

/** Why `signer` refuses the request, or undefined when it signs it. */
export function signerProblem(
  signer: BuiltinSigner,
  request: x509.Pkcs10CertificateRequest,
  usages: readonly string[],
): string | undefined {
  switch (signer) {
    case "apiserverClient":
      return apiserverClientProblem(usages);
    case "apiserverClientKubelet":
      return kubeletClientProblem(request, usages);
    case "kubeletServing":
      return kubeletServingProblem(request, usages);
  }
}

export { commonName };
