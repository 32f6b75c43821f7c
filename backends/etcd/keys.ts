// Contract keys and values are strings; etcd stores bytes. Prefix scans become etcd ranges.

import type { StoredValue } from "../contract/index.ts";
import { type KeyValue, toNumber } from "./proto.ts";

export function encode(text: string): Buffer {
  return Buffer.from(text, "utf8");
}

/** Absent bytes (protobuf's default, which may be a plain empty array) decode as "". */
export function decode(bytes: Uint8Array | null | undefined): string {
  if (!bytes || bytes.length === 0) return "";
  return Buffer.isBuffer(bytes)
    ? bytes.toString("utf8")
    : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("utf8");
}

/**
 * The exclusive end of the range holding every key that starts with `prefix`: the prefix with
 * its last byte below 0xff incremented. With no such byte (or an empty prefix) the range runs to
 * the end of the keyspace, which etcd spells as a single zero byte.
 */
export function prefixEnd(prefix: Buffer): Buffer {
  for (let i = prefix.length - 1; i >= 0; i--) {
    const byte = prefix[i] as number;
    if (byte < 0xff) {
      const end = Buffer.from(prefix.subarray(0, i + 1));
      end[i] = byte + 1;
      return end;
    }
  }
  return Buffer.from([0]);
}

/** The range `[key, end)` covering a prefix; the empty prefix becomes the whole keyspace. */
export function prefixRange(prefix: string): { key: Buffer; rangeEnd: Buffer } {
  const key = encode(prefix);
  return { key: key.length === 0 ? Buffer.from([0]) : key, rangeEnd: prefixEnd(key) };
}

/** The smallest key strictly after `key`, to resume a paged range. */
export function keyAfter(key: Uint8Array): Buffer {
  const next = Buffer.alloc(key.length + 1);
  next.set(key);
  return next;
}

export function toStoredValue(kv: KeyValue): StoredValue {
  return {
    key: decode(kv.key),
    value: decode(kv.value),
    createRevision: toNumber(kv.createRevision),
    modRevision: toNumber(kv.modRevision),
  };
}
