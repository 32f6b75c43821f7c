// Detached JWS signatures of cluster-info's kubeconfig, as a joining node checks them (RFC 7515
// appendix F: the compact form with the payload left out, `header..signature`). HS256 keyed by the
// token's secret part, zero-padded to 32 bytes as upstream pads it, with the token id as `kid` in
// the protected header; the header JSON is `{"alg":"HS256","kid":"<id>"}` in that order, so a
// signature here is byte for byte the one upstream computes for the same content and token.
import { CompactSign } from "jose";

const MIN_KEY_BYTES = 32;

function hmacKey(tokenSecret: string): Uint8Array {
  const bytes = Buffer.from(tokenSecret, "utf8");
  if (bytes.length >= MIN_KEY_BYTES) return bytes;
  const padded = new Uint8Array(MIN_KEY_BYTES);
  padded.set(bytes);
  return padded;
}

export async function detachedSignature(
  content: string,
  tokenId: string,
  tokenSecret: string,
): Promise<string> {
  const compact = await new CompactSign(new TextEncoder().encode(content))
    .setProtectedHeader({ alg: "HS256", kid: tokenId })
    .sign(hmacKey(tokenSecret));
  const [header, , signature] = compact.split(".");
  return `${header}..${signature}`;
}

/** Whether `signature` is the one this content and token give (upstream compares the strings). */
export async function detachedSignatureIsValid(
  signature: string,
  content: string,
  tokenId: string,
  tokenSecret: string,
): Promise<boolean> {
  return signature === (await detachedSignature(content, tokenId, tokenSecret));
}
