// Checking a TLS peer's client certificate against a CA bundle of our choosing, independently of
// the CAs the TLS listener itself trusts: the listener may accept certificates of several CAs
// (client CA, front-proxy CA), and each authenticator must only believe its own.
import { X509Certificate } from "node:crypto";
import type { PeerCertificate, TLSSocket } from "node:tls";

const CLIENT_AUTH = "1.3.6.1.5.5.7.3.2";
const ANY_EXTENDED_KEY_USAGE = "2.5.29.37.0";
const MAX_CHAIN = 8;

/** Every certificate of a PEM bundle; throws when there is none or one does not parse. */
export function parseCertificateBundle(pem: string): X509Certificate[] {
  const blocks = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  if (blocks.length === 0) throw new Error("no certificate found in the CA bundle");
  return blocks.map((b) => new X509Certificate(b));
}

export type ChainResult =
  | { readonly ok: true; readonly leaf: PeerCertificate }
  | { readonly ok: false; readonly reason: string };

function validAt(cert: X509Certificate, now: Date): boolean {
  return cert.validFromDate <= now && now <= cert.validToDate;
}

/** Extended key usages allow client authentication (no extension: any use, as in Go). */
function allowsClientAuth(cert: X509Certificate): boolean {
  const usages = cert.keyUsage;
  if (usages === undefined || usages.length === 0) return true;
  return usages.includes(CLIENT_AUTH) || usages.includes(ANY_EXTENDED_KEY_USAGE);
}

function signedBy(child: X509Certificate, issuer: X509Certificate): boolean {
  try {
    return child.checkIssued(issuer) && child.verify(issuer.publicKey);
  } catch {
    return false;
  }
}

/** The certificates the peer sent after its leaf (intermediates), as far as TLS kept them. */
function peerIntermediates(leaf: PeerCertificate): X509Certificate[] {
  const out: X509Certificate[] = [];
  let current = (leaf as { issuerCertificate?: PeerCertificate }).issuerCertificate;
  const seen = new Set<string>([leaf.fingerprint256]);
  while (current?.raw && !seen.has(current.fingerprint256) && out.length < MAX_CHAIN) {
    seen.add(current.fingerprint256);
    try {
      out.push(new X509Certificate(current.raw));
    } catch {
      break;
    }
    current = (current as { issuerCertificate?: PeerCertificate }).issuerCertificate;
  }
  return out;
}

/**
 * Verifies the peer's certificate: a chain from it through the certificates the peer sent to
 * one of `roots` (each a trust anchor, as in Go's root pool), every link signed by the next,
 * intermediates being CAs, all valid now, and extended key usages allowing client
 * authentication. No certificate at all is `{ ok: false, reason: "none" }`.
 */
export function verifyPeerChain(
  socket: TLSSocket,
  roots: readonly X509Certificate[],
  now: Date = new Date(),
): ChainResult {
  const peer = typeof socket.getPeerCertificate === "function" ? socket.getPeerCertificate(true) : undefined;
  if (!peer?.raw) return { ok: false, reason: "none" };
  let leaf: X509Certificate;
  try {
    leaf = new X509Certificate(peer.raw);
  } catch {
    return { ok: false, reason: "unparsable client certificate" };
  }
  if (!validAt(leaf, now)) return { ok: false, reason: "client certificate expired or not yet valid" };
  if (!allowsClientAuth(leaf))
    return { ok: false, reason: "client certificate not valid for client authentication" };
  const intermediates = peerIntermediates(peer).filter(
    (c) => c.ca && validAt(c, now) && allowsClientAuth(c) && c.fingerprint256 !== leaf.fingerprint256,
  );
  let current = leaf;
  for (let depth = 0; depth <= MAX_CHAIN; depth++) {
    for (const root of roots) {
      if (signedBy(current, root) && validAt(root, now)) return { ok: true, leaf: peer };
    }
    const next = intermediates.find((c) => c !== current && signedBy(current, c));
    if (!next) break;
    current = next;
  }
  return { ok: false, reason: "certificate signed by unknown authority" };
}

/** The first common name of a certificate's subject. */
export function commonName(cert: PeerCertificate): string | undefined {
  const cn = (cert.subject as unknown as Record<string, string | string[] | undefined> | undefined)?.CN;
  return Array.isArray(cn) ? cn[0] : cn;
}
