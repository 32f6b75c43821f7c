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

/**
 * Where the contract's keys live in etcd: under `root` (`--etcd-prefix`), so that several
 * gateways, or other programs, can share one etcd. Contract keys begin with "/", so a root's
 * whole key space is the range of `root + "/"`, which never reaches a sibling such as `/registry2`.
 */
export class KeySpace {
  readonly root: string;

  /** `root` is "" (the top of etcd's key space) or a path such as `/registry`; trailing slashes go. */
  constructor(root: string) {
    const trimmed = root.replace(/\/+$/, "");
    if (trimmed !== "" && !trimmed.startsWith("/")) {
      throw new Error(`etcd key prefix must start with "/": ${JSON.stringify(root)}`);
    }
    this.root = trimmed;
  }

  key(key: string): Buffer {
    return encode(this.root + key);
  }

  range(prefix: string): { key: Buffer; rangeEnd: Buffer } {
    return prefixRange(this.root === "" ? prefix : `${this.root}${prefix === "" ? "/" : prefix}`);
  }

  /** A key-value read from etcd, with its key back in the contract's terms. */
  stored(kv: KeyValue): StoredValue {
    const value = toStoredValue(kv);
    return this.root === "" ? value : { ...value, key: value.key.slice(this.root.length) };
  }
}
