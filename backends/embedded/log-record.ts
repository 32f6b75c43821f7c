// The binary layout of one event-log record. The record's lmdb key is its revision.
//
//   0      u8   kind (PUT or DELETE)
//   1      f64  createRevision of the key's incarnation
//   9      f64  prevRevision: the key's previous modRevision, 0 when it did not exist
//   17     u16  byte length of the key
//   19     key  UTF-8
//   19+k   value UTF-8 (PUT only, to the end)
//
// The previous value is not copied here: it is the record at prevRevision, which compaction keeps
// for as long as a retained event refers to it (compaction.ts). A fixed header lets a catch-up read
// test the key against a watch prefix without decoding the value.

import type { Revision } from "../contract/index.ts";

export const PUT = 0;
export const DELETE = 1;
export type RecordKind = typeof PUT | typeof DELETE;

const HEADER = 19;

export function encodeRecord(
  kind: RecordKind,
  key: string,
  createRevision: Revision,
  prevRevision: Revision,
  value: string | undefined,
): Buffer {
  const keyBytes = Buffer.byteLength(key);
  const valueBytes = value === undefined ? 0 : Buffer.byteLength(value);
  const buf = Buffer.allocUnsafe(HEADER + keyBytes + valueBytes);
  buf[0] = kind;
  buf.writeDoubleLE(createRevision, 1);
  buf.writeDoubleLE(prevRevision, 9);
  buf.writeUInt16LE(keyBytes, 17);
  buf.write(key, HEADER, "utf8");
  if (value !== undefined) buf.write(value, HEADER + keyBytes, "utf8");
  return buf;
}

export function recordKind(buf: Buffer): RecordKind {
  return buf[0] === DELETE ? DELETE : PUT;
}

export function recordCreateRevision(buf: Buffer): Revision {
  return buf.readDoubleLE(1);
}

export function recordPrevRevision(buf: Buffer): Revision {
  return buf.readDoubleLE(9);
}

export function recordKey(buf: Buffer): string {
  return buf.toString("utf8", HEADER, HEADER + buf.readUInt16LE(17));
}

export function recordValue(buf: Buffer): string {
  return buf.toString("utf8", HEADER + buf.readUInt16LE(17));
}
