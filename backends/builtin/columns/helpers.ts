// Shared pieces of the built-in kinds' table cells: reading loosely typed JSON the way Go's zero
// values would, and the text forms upstream's printers use (label sets, label selectors, container
// lists, quantities, ages). The server always computes the wide cells too; clients hide the
// columns of priority 1 unless asked for them.
import { asArray, asObject, asString, type JsonObject } from "../../common/json.ts";
import type { TableColumn } from "../../schema/resource-schema.ts";
import { formatQuantity, quantityFromJson } from "../../schema/structural/quantity.ts";
import { isQualifiedName, isValidLabelValue } from "../../validation/names.ts";
import { humanDuration, timestampAge } from "../human-duration.ts";

export type { JsonObject };
export { asArray, asObject, asString };

/** Columns by resource plural, for one API group. */
export type GroupColumns = ReadonlyMap<string, readonly TableColumn[]>;

type CellType = TableColumn["type"];

/** A column of any type; `format` is only set where upstream sets one. */
export function col(
  type: CellType,
  name: string,
  description: string,
  cell: TableColumn["cell"],
  options: { priority?: number; format?: string } = {},
): TableColumn {
  return {
    name,
    type,
    description,
    priority: options.priority ?? 0,
    ...(options.format ? { format: options.format } : {}),
    cell,
  };
}

/** `object[key]` as an object, or an empty one. */
export function obj(value: unknown, ...path: string[]): JsonObject {
  let cur: unknown = value;
  for (const key of path) cur = asObject(cur)?.[key];
  return asObject(cur) ?? {};
}

export function str(value: unknown, ...path: string[]): string {
  let cur: unknown = value;
  for (const key of path) cur = asObject(cur)?.[key];
  return asString(cur);
}

export function arr(value: unknown, ...path: string[]): readonly unknown[] {
  let cur: unknown = value;
  for (const key of path) cur = asObject(cur)?.[key];
  return asArray(cur);
}

/** Whether `object[key]` holds something (a Go pointer or slice that is not nil). */
export function present(object: JsonObject, key: string): boolean {
  return object[key] !== undefined && object[key] !== null;
}

/** An integer field, 0 when absent or not a number (Go's zero value). */
export function int(value: unknown): number {
  return typeof value === "number" && Number.isFinite(value) ? Math.trunc(value) : 0;
}

export function bool(value: unknown): boolean {
  return value === true;
}

export const spec = (o: JsonObject): JsonObject => obj(o, "spec");
export const status = (o: JsonObject): JsonObject => obj(o, "status");
export const meta = (o: JsonObject): JsonObject => obj(o, "metadata");

/** Whether the object is being deleted. */
export function deleting(o: JsonObject): boolean {
  return present(meta(o), "deletionTimestamp");
}

// Go's zero time, which upstream reports as unknown rather than as an age.
const ZERO_TIME = /^0001-01-01T00:00:00(\.0+)?Z$/;

/** Time since an RFC 3339 timestamp, `<unknown>` without one. */
export function since(timestamp: unknown, now: number = Date.now()): string {
  if (typeof timestamp === "string" && ZERO_TIME.test(timestamp)) return "<unknown>";
  return timestampAge(timestamp, now);
}

/** Milliseconds since the epoch, or undefined for a missing or unreadable timestamp. */
export function time(timestamp: unknown): number | undefined {
  if (typeof timestamp !== "string" || timestamp === "" || ZERO_TIME.test(timestamp)) return undefined;
  const t = Date.parse(timestamp);
  return Number.isNaN(t) ? undefined : t;
}

export { humanDuration };

/** The "Age" column (time since creation), as most kinds end with. */
export function age(): TableColumn {
  return col("string", "Age", "How long ago the object was created.", (o) =>
    since(meta(o).creationTimestamp),
  );
}

/**
 * A quantity in its canonical spelling; a missing one reads as "0" (the zero quantity), one
 * that cannot be parsed is shown as stored.
 */
export function quantity(value: unknown): string {
  if (value === undefined || value === null) return "0";
  try {
    return formatQuantity(quantityFromJson(value));
  } catch {
    return typeof value === "string" ? value : String(value);
  }
}

/** A quantity behind an optional pointer: Go prints a nil one as `<nil>`. */
export function quantityPtr(value: unknown): string {
  return value === undefined || value === null ? "<nil>" : quantity(value);
}

/** An int-or-string value as text. */
export function intOrString(value: unknown): string {
  if (typeof value === "number") return String(Math.trunc(value));
  return asString(value);
}

/** A label map as `k=v,k2=v2` (pairs sorted), or `<none>` when empty. */
export function formatLabels(labels: unknown): string {
  const pairs = Object.entries(asObject(labels) ?? {}).map(([k, v]) => `${k}=${asString(v)}`);
  return pairs.length === 0 ? "<none>" : pairs.sort(byteOrder).join(",");
}

function byteOrder(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

class SelectorError extends Error {}

interface Requirement {
  readonly key: string;
  readonly text: string;
}

function requirement(key: string, op: string, values: readonly string[]): Requirement {
  if (isQualifiedName(key).length > 0) throw new SelectorError(key);
  for (const v of values) if (isValidLabelValue(v).length > 0) throw new SelectorError(v);
  switch (op) {
    case "=":
      return { key, text: `${key}=${values[0] ?? ""}` };
    case "In":
    case "NotIn":
      if (values.length === 0) throw new SelectorError(op);
      return {
        key,
        text: `${key} ${op === "In" ? "in" : "notin"} (${[...values].sort(byteOrder).join(",")})`,
      };
    case "Exists":
      if (values.length !== 0) throw new SelectorError(op);
      return { key, text: key };
    case "DoesNotExist":
      if (values.length !== 0) throw new SelectorError(op);
      return { key, text: `!${key}` };
    default:
      throw new SelectorError(op);
  }
}

/**
 * A label selector (`matchLabels`, `matchExpressions`) in the selector syntax, requirements
 * ordered by key; "" when it selects everything (or is absent). Throws SelectorError when a key,
 * value or operator is not valid.
 */
function selectorText(selector: unknown): string {
  const s = asObject(selector);
  if (!s) return "";
  const reqs: Requirement[] = [];
  for (const [k, v] of Object.entries(asObject(s.matchLabels) ?? {}))
    reqs.push(requirement(k, "=", [asString(v)]));
  for (const e of asArray(s.matchExpressions)) {
    const expr = asObject(e) ?? {};
    reqs.push(requirement(asString(expr.key), asString(expr.operator), asArray(expr.values).map(asString)));
  }
  // A stable sort by key (the same key twice keeps the declaration order).
  reqs.sort((a, b) => byteOrder(a.key, b.key));
  return reqs.map((r) => r.text).join(",");
}

/** A label selector as text, `<none>` when empty and `<error>` when it is not valid. */
export function formatLabelSelector(selector: unknown): string {
  try {
    return selectorText(selector) || "<none>";
  } catch (e) {
    if (e instanceof SelectorError) return "<error>";
    throw e;
  }
}

/** A label selector as text ("" when empty), `<invalid>` when it is not valid (Deployments). */
export function selectorOrInvalid(selector: unknown): string {
  try {
    return selectorText(selector);
  } catch (e) {
    if (e instanceof SelectorError) return "<invalid>";
    throw e;
  }
}

/** Container names and images of a pod spec, each comma-separated in declaration order. */
export function containerCells(podSpec: JsonObject): { names: string; images: string } {
  const containers = asArray(podSpec.containers).map((c) => asObject(c) ?? {});
  return {
    names: containers.map((c) => asString(c.name)).join(","),
    images: containers.map((c) => asString(c.image)).join(","),
  };
}

/** The wide Containers and Images columns, for kinds whose objects embed a pod template. */
export function templateColumns(podSpec: (o: JsonObject) => JsonObject, priority = 1): TableColumn[] {
  return [
    col(
      "string",
      "Containers",
      "The names of the template's containers.",
      (o) => containerCells(podSpec(o)).names,
      {
        priority,
      },
    ),
    col(
      "string",
      "Images",
      "The images the template's containers run.",
      (o) => containerCells(podSpec(o)).images,
      { priority },
    ),
  ];
}

/** The first `max` items joined by commas, with `+ N more...` for the rest; `<unset>` when none. */
export function listWithMore(items: readonly string[], max: number): string {
  const shown = items.slice(0, max).join(",");
  if (items.length > max) return `${shown} + ${items.length - max} more...`;
  return shown === "" ? "<unset>" : shown;
}

/** `host:port`, with brackets around IPv6 hosts. */
export function joinHostPort(host: string, port: number): string {
  return host.includes(":") ? `[${host}]:${port}` : `${host}:${port}`;
}

/** An optional boolean as `True`, `False` or `<unset>`. */
export function boolPtr(value: unknown): string {
  if (typeof value !== "boolean") return "<unset>";
  return value ? "True" : "False";
}

/**
 * The distinct IPs (or hostnames, for entries without an IP) of a load balancer status, sorted
 * and comma-separated. The server never shortens them: it prints the wide form.
 */
export function loadBalancerIngress(loadBalancer: JsonObject): string {
  const seen = new Set<string>();
  for (const entry of asArray(loadBalancer.ingress)) {
    const e = asObject(entry) ?? {};
    const ip = asString(e.ip);
    const hostname = asString(e.hostname);
    if (ip !== "") seen.add(ip);
    else if (hostname !== "") seen.add(hostname);
  }
  return [...seen].sort(byteOrder).join(",");
}

/** The short names of persistent volume access modes, in a fixed order: RWO, ROX, RWX, RWOP. */
export function accessModes(modes: unknown): string {
  const have = new Set(asArray(modes).map(asString));
  const out: string[] = [];
  if (have.has("ReadWriteOnce")) out.push("RWO");
  if (have.has("ReadOnlyMany")) out.push("ROX");
  if (have.has("ReadWriteMany")) out.push("RWX");
  if (have.has("ReadWriteOncePod")) out.push("RWOP");
  return out.join(",");
}

/** Sorted in byte order, as Go sorts strings. */
export function sortedStrings(values: Iterable<string>): string[] {
  return [...values].sort(byteOrder);
}
