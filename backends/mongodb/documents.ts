// The three collections' documents, and reading them back. Anyone with database access can
// hand-edit a document, so every read checks the shape: a bad object document becomes an
// unreadable value naming its key (that object fails, nothing else does), never a crash.

import { InternalStorageError, type Revision, type StoredValue, type WatchEvent } from "../contract/index.ts";

/** `<prefix>_objects`: one document per key, holding the current value. */
export interface ObjectDoc {
  _id: string;
  value: string;
  createRevision: number;
  modRevision: number;
}

/** `<prefix>_log`: one document per committed change, `_id` its revision. */
export interface LogDoc {
  _id: number;
  key: string;
  type: "put" | "delete";
  /** The new value (puts only). */
  value?: string;
  /** Of the new value for a put; of the removed value for a delete. */
  createRevision: number;
  /** The value before the change: absent for a create. */
  prevValue?: string;
  prevModRevision?: number;
}

/** `<prefix>_meta`: the revision counter and the compaction point. */
export interface MetaDoc {
  _id: "revision" | "compacted";
  revision: number;
}

export const REVISION_ID = "revision";
export const COMPACTED_ID = "compacted";

function isRevision(n: unknown): n is number {
  return typeof n === "number" && Number.isSafeInteger(n) && n > 0;
}

function unreadable(key: string, why: string): StoredValue {
  return {
    key,
    value: "",
    createRevision: 0,
    modRevision: 0,
    unreadable: new InternalStorageError(`stored object ${key} is not readable: ${why}`, key),
  };
}

/** An object document as a stored value; a malformed one is marked unreadable. */
export function readObject(key: string, doc: Record<string, unknown>): StoredValue {
  const { value, createRevision, modRevision } = doc;
  if (typeof value !== "string") return unreadable(key, "its value is not a string");
  if (!isRevision(createRevision) || !isRevision(modRevision) || modRevision < createRevision)
    return unreadable(key, "its revisions are not positive integers in order");
  return { key, value, createRevision, modRevision };
}

/** A stored value that may be written over: malformed ones throw their error instead. */
export function readableObject(key: string, doc: Record<string, unknown>): StoredValue {
  const kv = readObject(key, doc);
  if (kv.unreadable) throw kv.unreadable;
  return kv;
}

/** A revision number read from a meta document; anything else is a broken store. */
export function readRevision(doc: Record<string, unknown> | null, what: string): Revision {
  if (!doc) return 0;
  const n = doc.revision;
  if (typeof n === "number" && Number.isSafeInteger(n) && n >= 0) return n;
  throw new InternalStorageError(`the ${what} document holds no valid revision`);
}

/**
 * A log entry as a watch event. A malformed entry with a readable key still reports the change
 * (marked unreadable, so the watch cache fails that object's reads); one without even a key or
 * revision is skipped by the caller.
 */
export function readLogEntry(doc: Record<string, unknown>): WatchEvent | undefined {
  const { _id: revision, key, type, value, createRevision, prevValue, prevModRevision } = doc;
  if (!isRevision(revision) || typeof key !== "string") return undefined;
  const prev =
    prevValue === undefined && prevModRevision === undefined
      ? undefined
      : typeof prevValue === "string" &&
          isRevision(prevModRevision) &&
          isRevision(createRevision) &&
          prevModRevision >= createRevision
        ? { key, value: prevValue, createRevision, modRevision: prevModRevision }
        : unreadable(key, `log entry ${revision} holds a malformed previous value`);
  if (type === "delete") {
    return {
      type: "delete",
      key,
      revision,
      prev: prev ?? unreadable(key, `log entry ${revision} lacks its value`),
    };
  }
  const kv: StoredValue =
    type === "put" && typeof value === "string" && isRevision(createRevision) && createRevision <= revision
      ? { key, value, createRevision, modRevision: revision }
      : { ...unreadable(key, `log entry ${revision} is malformed`), modRevision: revision };
  return prev ? { type: "put", kv, prev } : { type: "put", kv };
}

/** The exclusive upper bound of keys under `prefix` (keys are ASCII paths; see common/keys.ts). */
export function prefixEnd(prefix: string): string | undefined {
  for (let i = prefix.length - 1; i >= 0; i--) {
    const code = prefix.charCodeAt(i);
    if (code < 0xffff) return prefix.slice(0, i) + String.fromCharCode(code + 1);
  }
  return undefined;
}

/** A filter on a string field for every value under `prefix`. */
export function prefixFilter(prefix: string): Record<string, string> {
  const end = prefixEnd(prefix);
  return end === undefined ? { $gte: prefix } : { $gte: prefix, $lt: end };
}
