// The `storageVersionHash` of a resource in discovery: an opaque value that changes when the
// version objects are stored in changes, so that clients (the storage version migrator) notice.
import { createHash } from "node:crypto";

/** Base64 of the first 8 bytes of SHA-256 over `<group>/<version>/<kind>` (the core group is ""). */
export function storageVersionHash(group: string, version: string, kind: string): string {
  return createHash("sha256")
    .update(`${group}/${version}/${kind}`)
    .digest()
    .subarray(0, 8)
    .toString("base64");
}
