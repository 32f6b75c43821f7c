// metadata.managedFields as the field manager works with it: one entry per identity (manager,
// operation, subresource, and apiVersion for updaters), each with its field set and time.
import { FieldSet, FieldSetError } from "./field-set.ts";

export type Operation = "Apply" | "Update";

export interface ManagerEntry {
  readonly manager: string;
  readonly operation: Operation;
  /** group/version the set is written in. */
  readonly apiVersion: string;
  readonly subresource: string;
  readonly set: FieldSet;
  /** RFC 3339, second precision; absent on entries written without one. */
  readonly time: string | undefined;
}

/** Entries by identity. */
export type Managers = Map<string, ManagerEntry>;

export class ManagedFieldsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ManagedFieldsError";
  }
}

/**
 * The key that tells entries apart; appliers are one entry whatever version they applied at.
 * Built as upstream builds it (a JSON object of the identifying fields), since conflict messages
 * are printed from it.
 */
export function identity(
  e: Pick<ManagerEntry, "manager" | "operation" | "apiVersion" | "subresource">,
): string {
  return JSON.stringify({
    manager: e.manager,
    operation: e.operation,
    ...(e.operation === "Update" && e.apiVersion ? { apiVersion: e.apiVersion } : {}),
    ...(e.subresource ? { subresource: e.subresource } : {}),
  });
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/**
 * Decoded sets by their FieldsV1 text: the same entries come back on every write of an object,
 * and sets are never changed once decoded. Bounded by text size; the oldest go first.
 */
const decoded = new Map<string, FieldSet>();
const DECODED_MAX_CHARS = 4 * 1024 * 1024;
let decodedChars = 0;
/** The wire text a decoded set came from, reused while the set is unchanged. */
const wireOf = new WeakMap<FieldSet, string>();

function decodeSet(fieldsV1: unknown): FieldSet {
  const text = JSON.stringify(fieldsV1);
  const hit = decoded.get(text);
  if (hit) return hit;
  const set = FieldSet.fromFieldsV1(fieldsV1);
  wireOf.set(set, text);
  decoded.set(text, set);
  decodedChars += text.length;
  for (const key of decoded.keys()) {
    if (decodedChars <= DECODED_MAX_CHARS) break;
    decoded.delete(key);
    decodedChars -= key.length;
  }
  return set;
}

function encodeSet(set: FieldSet): unknown {
  const wire = wireOf.get(set);
  // Parsed afresh, so that nothing done to the written object reaches the cache.
  return wire === undefined ? set.toFieldsV1() : JSON.parse(wire);
}

/** Parses managedFields; a malformed list is a ManagedFieldsError. */
export function decodeManagedFields(list: unknown): Managers {
  const out: Managers = new Map();
  if (list === undefined || list === null) return out;
  if (!Array.isArray(list)) throw new ManagedFieldsError("managedFields must be a list");
  list.forEach((raw, i) => {
    if (!isObject(raw)) throw new ManagedFieldsError(`managed fields entry ${i} must be an object`);
    const operation = raw.operation;
    if (operation !== "Apply" && operation !== "Update")
      throw new ManagedFieldsError("operation must be `Apply` or `Update`");
    const apiVersion = typeof raw.apiVersion === "string" ? raw.apiVersion : "";
    if (apiVersion === "") throw new ManagedFieldsError("apiVersion must not be empty");
    const fieldsType = raw.fieldsType ?? "";
    if (fieldsType === "") throw new ManagedFieldsError(`missing fieldsType in managed fields entry ${i}`);
    if (fieldsType !== "FieldsV1")
      throw new ManagedFieldsError(
        `invalid fieldsType ${JSON.stringify(fieldsType)} in managed fields entry ${i}`,
      );
    let set: FieldSet;
    try {
      set = decodeSet(raw.fieldsV1 ?? {});
    } catch (err) {
      if (err instanceof FieldSetError)
        throw new ManagedFieldsError(`error decoding versioned set from entry ${i}: ${err.message}`);
      throw err;
    }
    const entry: ManagerEntry = {
      manager: typeof raw.manager === "string" ? raw.manager : "",
      operation,
      apiVersion,
      subresource: typeof raw.subresource === "string" ? raw.subresource : "",
      set,
      time: typeof raw.time === "string" ? raw.time : undefined,
    };
    out.set(identity(entry), entry);
  });
  return out;
}

function seconds(time: string | undefined): number {
  if (!time) return 0;
  const ms = Date.parse(time);
  return Number.isNaN(ms) ? 0 : Math.floor(ms / 1000);
}

/** Upstream's order: appliers first, then by time, manager, apiVersion and subresource. */
function compareEntries(p: ManagerEntry, q: ManagerEntry): number {
  if (p.operation !== q.operation) return p.operation < q.operation ? -1 : 1;
  const ps = seconds(p.time);
  const qs = seconds(q.time);
  if (ps !== qs) return ps - qs;
  if (p.manager !== q.manager) return p.manager < q.manager ? -1 : 1;
  if (p.apiVersion !== q.apiVersion) return p.apiVersion < q.apiVersion ? -1 : 1;
  return p.subresource < q.subresource ? -1 : p.subresource > q.subresource ? 1 : 0;
}

/** The wire form; undefined (the field is dropped) when no entry is left. */
export function encodeManagedFields(managers: Managers): Record<string, unknown>[] | undefined {
  if (managers.size === 0) return undefined;
  return [...managers.values()].sort(compareEntries).map((e) => ({
    manager: e.manager,
    operation: e.operation,
    apiVersion: e.apiVersion,
    ...(e.time ? { time: e.time } : {}),
    fieldsType: "FieldsV1",
    fieldsV1: encodeSet(e.set),
    ...(e.subresource ? { subresource: e.subresource } : {}),
  }));
}

/** The list holding one empty entry that clears managedFields (an empty list does not). */
export function isResetRequest(list: unknown): boolean {
  return Array.isArray(list) && list.length === 1 && isObject(list[0]) && Object.keys(list[0]).length === 0;
}

/** Second-precision RFC 3339 time, as managedFields entries carry it. */
export function entryTime(now: Date): string {
  return `${now.toISOString().slice(0, 19)}Z`;
}
