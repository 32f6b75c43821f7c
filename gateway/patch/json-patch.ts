// JSON patch (RFC 6902) with the behaviour of the library kube-apiserver 1.27 applies it with
// (evanphx/json-patch v4): operations run in order on a private copy, all or nothing. Its
// departures from the RFC are kept because clients see them: negative array indexes count from
// the end, `replace` and `copy` of a missing object key act like `add` (of null, for copy), a
// missing `value` means null, and a path's first segment is not checked to be empty.
//
// Statuses as upstream's PATCH handler answers: a document that does not decode as a list of
// operations is a 400, more than 10,000 operations a 413, and any failure while applying a 422
// with upstream's generic text (the cause is kept in `detail`).

import { cloneJson } from "../../backends/common/json.ts";
import {
  guardDepth,
  jsonKind,
  PatchError,
  type PatchErrorStatus,
  UNPROCESSABLE_PATCH_MESSAGE,
} from "./patch-error.ts";

/** Kept for callers that catch JSON patch failures specifically; always a PatchError. */
export class JsonPatchError extends PatchError {
  constructor(status: PatchErrorStatus, message: string, detail?: string) {
    super(status, message, detail);
    this.name = "JsonPatchError";
  }
}

function unprocessable(detail: string): JsonPatchError {
  return new JsonPatchError(422, UNPROCESSABLE_PATCH_MESSAGE, detail);
}

/** Upstream caps the operations of one patch; more is refused before anything is applied. */
export const MAX_JSON_PATCH_OPERATIONS = 10_000;

/** Upstream caps the bytes all `copy` operations of one patch may add (its JSONPatchMaxCopyBytes). */
export const MAX_JSON_PATCH_COPY_BYTES = 3 * 1024 * 1024;

export interface JsonPatchOptions {
  /**
   * The request's fieldValidation. Except with "Ignore", upstream first decodes the operations
   * into typed fields, so a non-string `op`, `path` or `from` is a 400 rather than a 422.
   */
  readonly fieldValidation?: string;
}

type JsonMap = Record<string, unknown>;
type Container = JsonMap | unknown[];

function isMap(v: unknown): v is JsonMap {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function isContainer(v: unknown): v is Container {
  return typeof v === "object" && v !== null;
}

/** A failure while applying; `cause` is the text of the library's error chain. */
class ApplyFailure extends Error {}

function failure(message: string, cause: string): ApplyFailure {
  return new ApplyFailure(`${message}: ${cause}`);
}

const MISSING = "missing value";
const INVALID_INDEX = "invalid index referenced";

// ---------------------------------------------------------------------------------------------
// Decoding

function decodeError(patch: unknown, fieldValidation: string | undefined): string | undefined {
  if (patch === null) return undefined;
  const typed = fieldValidation !== "Ignore";
  const listType = typed ? "[]handlers.jsonPatchOp" : "jsonpatch.Patch";
  const opType = typed ? "handlers.jsonPatchOp" : "jsonpatch.Operation";
  if (!Array.isArray(patch))
    return `json: cannot unmarshal ${jsonKind(patch)} into Go value of type ${listType}`;
  for (const op of patch) {
    if (op === null) continue;
    if (!isMap(op)) return `json: cannot unmarshal ${jsonKind(op)} into Go value of type ${opType}`;
    if (!typed) continue;
    for (const field of Object.keys(op)) {
      const v = op[field];
      if ((field === "op" || field === "path" || field === "from") && v !== null && typeof v !== "string")
        return `json: cannot unmarshal ${jsonKind(v)} into Go struct field jsonPatchOp.${field} of type string`;
    }
  }
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// Pointers and containers

function decodeToken(token: string): string {
  return token.replace(/~[01]/g, (m) => (m === "~1" ? "/" : "~"));
}

/** Go's strconv.Atoi: an optional sign and decimal digits, within 64 bits. */
function atoi(text: string): number {
  if (!/^[+-]?\d+$/.test(text)) throw new ApplyFailure(`strconv.Atoi: parsing "${text}": invalid syntax`);
  const n = Number(text);
  if (!Number.isSafeInteger(n) && Math.abs(n) >= 2 ** 63)
    throw new ApplyFailure(`strconv.Atoi: parsing "${text}": value out of range`);
  return n;
}

function invalidIndex(i: number): ApplyFailure {
  return failure(`Unable to access invalid index: ${i}`, INVALID_INDEX);
}

/** An existing position of a list, counting negative indexes from the end. */
function listPosition(list: readonly unknown[], key: string): number {
  let i = atoi(key);
  if (i < 0) {
    if (i < -list.length) throw invalidIndex(i);
    i += list.length;
  }
  if (i >= list.length) throw invalidIndex(i);
  return i;
}

/** The value under `key`, or undefined when an object lacks it (not an error upstream). */
function getChild(container: Container, key: string): unknown {
  if (Array.isArray(container)) return container[listPosition(container, key)];
  return Object.hasOwn(container, key) ? container[key] : undefined;
}

function setKey(object: JsonMap, key: string, value: unknown): void {
  Object.defineProperty(object, key, { value, writable: true, enumerable: true, configurable: true });
}

function addChild(container: Container, key: string, value: unknown): void {
  if (!Array.isArray(container)) {
    setKey(container, key, value);
    return;
  }
  if (key === "-") {
    container.push(value);
    return;
  }
  let i: number;
  try {
    i = atoi(key);
  } catch (err) {
    throw failure(`value was not a proper array index: '${key}'`, (err as Error).message);
  }
  const size = container.length + 1;
  if (i >= size) throw invalidIndex(i);
  if (i < 0) {
    if (i < -size) throw invalidIndex(i);
    i += size;
  }
  container.splice(i, 0, value);
}

function removeChild(container: Container, key: string): void {
  if (!Array.isArray(container)) {
    if (!Object.hasOwn(container, key)) throw failure(`Unable to remove nonexistent key: ${key}`, MISSING);
    delete container[key];
    return;
  }
  let i = atoi(key);
  if (i >= container.length) throw invalidIndex(i);
  if (i < 0) {
    if (i < -container.length) throw invalidIndex(i);
    i += container.length;
  }
  container.splice(i, 1);
}

/** The container a path's last segment lives in, and that segment; undefined if unreachable. */
function findParent(doc: Container, path: string): { container: Container; key: string } | undefined {
  const parts = path.split("/");
  if (parts.length < 2) return undefined;
  let current: Container = doc;
  for (const part of parts.slice(1, -1)) {
    let next: unknown;
    try {
      next = getChild(current, decodeToken(part));
    } catch {
      return undefined;
    }
    if (!isContainer(next)) return undefined;
    current = next;
  }
  return { container: current, key: decodeToken(parts[parts.length - 1] as string) };
}

// ---------------------------------------------------------------------------------------------
// Operations

function deepEqual(a: unknown, b: unknown): boolean {
  const stack: [unknown, unknown][] = [[a, b]];
  while (stack.length > 0) {
    const [x, y] = stack.pop() as [unknown, unknown];
    if (x === y) continue;
    if (!isContainer(x) || !isContainer(y) || Array.isArray(x) !== Array.isArray(y)) return false;
    if (Array.isArray(x)) {
      const ys = y as unknown[];
      if (x.length !== ys.length) return false;
      for (let i = 0; i < x.length; i++) stack.push([x[i], ys[i]]);
    } else {
      const xm = x as JsonMap;
      const ym = y as JsonMap;
      const keys = Object.keys(xm);
      if (keys.length !== Object.keys(ym).length) return false;
      for (const k of keys) {
        if (!Object.hasOwn(ym, k)) return false;
        stack.push([xm[k], ym[k]]);
      }
    }
  }
  return true;
}

class Operation {
  readonly #raw: JsonMap;

  constructor(raw: unknown) {
    this.#raw = isMap(raw) ? raw : {};
  }

  get kind(): string {
    const op = this.#raw.op;
    return Object.hasOwn(this.#raw, "op") && typeof op === "string" ? op : "unknown";
  }

  #string(field: string, missing: string): string {
    const v = Object.hasOwn(this.#raw, field) ? this.#raw[field] : null;
    if (v === null) throw failure(missing, MISSING);
    if (typeof v !== "string")
      throw new ApplyFailure(`json: cannot unmarshal ${jsonKind(v)} into Go value of type string`);
    return v;
  }

  path(): string {
    return this.#string("path", "operation missing path field");
  }

  from(): string {
    return this.#string("from", "operation, missing from field");
  }

  hasValue(): boolean {
    return Object.hasOwn(this.#raw, "value");
  }

  /** A private copy of the operation's value; a missing value is null. */
  value(): unknown {
    return this.hasValue() ? cloneJson(this.#raw.value) : null;
  }
}

/** Runs `decode`, rewrapping its failure under the operation's own heading. */
function decoded(decode: () => string, heading: string, keepCause = true): string {
  try {
    return decode();
  } catch (err) {
    throw failure(heading, keepCause ? (err as Error).message : MISSING);
  }
}

function rewrap(run: () => void, heading: string): void {
  try {
    run();
  } catch (err) {
    throw failure(heading, (err as Error).message);
  }
}

type Doc = { root: Container; copied: number };

function opAdd(doc: Doc, op: Operation): void {
  const path = decoded(() => op.path(), "add operation failed to decode path", false);
  const at = findParent(doc.root, path);
  if (!at) throw failure(`add operation does not apply: doc is missing path: "${path}"`, MISSING);
  rewrap(() => addChild(at.container, at.key, op.value()), `error in add for path: '${path}'`);
}

function opRemove(doc: Doc, op: Operation): void {
  const path = decoded(() => op.path(), "remove operation failed to decode path", false);
  const at = findParent(doc.root, path);
  if (!at) throw failure(`remove operation does not apply: doc is missing path: "${path}"`, MISSING);
  rewrap(() => removeChild(at.container, at.key), `error in remove for path: '${path}'`);
}

function opReplace(doc: Doc, op: Operation): void {
  const path = decoded(() => op.path(), "replace operation failed to decode path");
  if (path === "") {
    // Only an object or a list can become the document; anything else is silently ignored.
    if (!op.hasValue()) throw new ApplyFailure("replace operation value must be object or array");
    const value = op.value();
    if (isContainer(value)) doc.root = value;
    return;
  }
  const at = findParent(doc.root, path);
  if (!at) throw failure(`replace operation does not apply: doc is missing path: ${path}`, MISSING);
  const { container, key } = at;
  if (Array.isArray(container)) {
    let i: number;
    try {
      i = listPosition(container, key);
    } catch {
      throw failure(`replace operation does not apply: doc is missing key: ${path}`, MISSING);
    }
    container[i] = op.value();
  } else setKey(container, key, op.value());
}

function opMove(doc: Doc, op: Operation): void {
  const from = decoded(() => op.from(), "move operation failed to decode from");
  const source = findParent(doc.root, from);
  if (!source) throw failure(`move operation does not apply: doc is missing from path: ${from}`, MISSING);
  let value: unknown;
  rewrap(() => {
    value = getChild(source.container, source.key) ?? null;
    removeChild(source.container, source.key);
  }, `error in move for path: '${source.key}'`);
  const path = decoded(() => op.path(), "move operation failed to decode path");
  const target = findParent(doc.root, path);
  if (!target)
    throw failure(`move operation does not apply: doc is missing destination path: ${path}`, MISSING);
  rewrap(() => addChild(target.container, target.key, value), `error in move for path: '${path}'`);
}

function opCopy(doc: Doc, op: Operation): void {
  const from = decoded(() => op.from(), "copy operation failed to decode from");
  const source = findParent(doc.root, from);
  if (!source) throw failure(`copy operation does not apply: doc is missing from path: ${from}`, MISSING);
  let value: unknown;
  rewrap(() => {
    value = getChild(source.container, source.key) ?? null;
  }, `error in copy for from: '${from}'`);
  const path = decoded(() => op.path(), "copy operation failed to decode path", false);
  const target = findParent(doc.root, path);
  if (!target)
    throw failure(`copy operation does not apply: doc is missing destination path: ${path}`, MISSING);
  // Copies are what could grow a document without bound, so their total size is limited.
  doc.copied += value === null ? 0 : Buffer.byteLength(JSON.stringify(value));
  if (doc.copied > MAX_JSON_PATCH_COPY_BYTES)
    throw new ApplyFailure(
      `Unable to complete the copy, the accumulated size increase of copy is ${doc.copied}, exceeding the limit ${MAX_JSON_PATCH_COPY_BYTES}`,
    );
  rewrap(
    () => addChild(target.container, target.key, cloneJson(value)),
    "error while adding value during copy",
  );
}

function opTest(doc: Doc, op: Operation): void {
  const path = decoded(() => op.path(), "test operation failed to decode path");
  const failed = () => failure(`testing value ${path} failed`, "test failed");
  if (path === "") {
    if (!op.hasValue() || !deepEqual(doc.root, op.value())) throw failed();
    return;
  }
  const at = findParent(doc.root, path);
  if (!at) throw failure(`test operation does not apply: is missing path: ${path}`, MISSING);
  let actual: unknown;
  rewrap(() => {
    actual = getChild(at.container, at.key);
  }, `error in test for path: '${path}'`);
  // A missing key and a null value are the same to upstream, and both match a null value.
  if (actual === undefined || actual === null) {
    if (op.hasValue() && op.value() === null) return;
    throw failed();
  }
  if (!op.hasValue() || !deepEqual(actual, op.value())) throw failed();
}

const OPERATIONS = new Map<string, (doc: Doc, op: Operation) => void>([
  ["add", opAdd],
  ["remove", opRemove],
  ["replace", opReplace],
  ["move", opMove],
  ["copy", opCopy],
  ["test", opTest],
]);

/**
 * Applies a JSON patch to a document (an object or a list) and returns the result; the inputs
 * are not modified. Throws JsonPatchError (a PatchError) with upstream's status and message.
 */
export function applyJsonPatch(document: unknown, patch: unknown, options: JsonPatchOptions = {}): unknown {
  const bad = decodeError(patch, options.fieldValidation);
  if (bad !== undefined) {
    const message = options.fieldValidation === "Ignore" ? bad : `error decoding patch: ${bad}`;
    throw new JsonPatchError(400, message);
  }
  const operations = (patch ?? []) as unknown[];
  if (operations.length > MAX_JSON_PATCH_OPERATIONS) {
    throw new JsonPatchError(
      413,
      `Request entity too large: The allowed maximum operations in a JSON patch is ${MAX_JSON_PATCH_OPERATIONS}, got ${operations.length}`,
    );
  }
  if (!isContainer(document)) throw unprocessable("the document is not an object or a list");
  return guardDepth(() => {
    const doc: Doc = { root: cloneJson(document), copied: 0 };
    for (const raw of operations) {
      const op = new Operation(raw);
      const run = OPERATIONS.get(op.kind);
      try {
        if (!run) throw new ApplyFailure(`Unexpected kind: ${op.kind}`);
        run(doc, op);
      } catch (err) {
        if (err instanceof ApplyFailure) throw unprocessable(err.message);
        throw err;
      }
    }
    return doc.root;
  }, document);
}
