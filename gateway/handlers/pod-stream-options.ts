// The query parameters of the Pod subresources that stream (PodLogOptions, PodExecOptions,
// PodAttachOptions, PodPortForwardOptions), read as upstream's parameter codec converts them
// (the first value of a scalar; a bool is false only when absent, "0" or "false"; integers and
// times as Go parses them, its error text the 400's message), PodLogOptions validated as upstream
// does (422), and the query the kubelet is sent (Go's url.Values encoding: sorted keys).
import type { JsonObject } from "../../backends/registry/index.ts";
import { errors } from "../request/api-error.ts";

export interface LogOptions {
  readonly container: string;
  readonly follow: boolean;
  readonly previous: boolean;
  readonly timestamps: boolean;
  readonly sinceSeconds?: bigint;
  /** RFC 3339, as the kubelet is sent it (whole seconds, UTC). */
  readonly sinceTime?: string;
  readonly tailLines?: bigint;
  readonly limitBytes?: bigint;
  readonly insecureSkipTLSVerifyBackend: boolean;
}

export interface StreamOptions {
  readonly container: string;
  readonly stdin: boolean;
  readonly stdout: boolean;
  readonly stderr: boolean;
  readonly tty: boolean;
  /** exec only. */
  readonly command: readonly string[];
}

/** Upstream's Convert_Slice_string_To_bool. */
function bool(q: URLSearchParams, name: string): boolean {
  const v = q.get(name);
  return v !== null && v !== "0" && v.toLowerCase() !== "false";
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** strconv.ParseInt(s, 10, 64), with Go's error text. */
function parseInt64(s: string): bigint {
  if (!/^[+-]?[0-9]+$/.test(s))
    throw errors.badRequest(`strconv.ParseInt: parsing ${goQuote(s)}: invalid syntax`);
  const n = BigInt(s);
  if (n < INT64_MIN || n > INT64_MAX)
    throw errors.badRequest(`strconv.ParseInt: parsing ${goQuote(s)}: value out of range`);
  return n;
}

/** Go's %q for the usual printable strings. */
function goQuote(s: string): string {
  return JSON.stringify(s);
}

function optionalInt64(q: URLSearchParams, name: string): bigint | undefined {
  const v = q.get(name);
  return v === null ? undefined : parseInt64(v);
}

// time.RFC3339 taken apart into Go's layout elements, each with the pattern of what it reads.
const RFC3339 = "2006-01-02T15:04:05Z07:00";
const ELEMENTS: readonly { readonly layout: string; readonly value: RegExp; readonly range?: string }[] = [
  { layout: "2006", value: /^[0-9]{4}/ },
  { layout: "-", value: /^-/ },
  { layout: "01", value: /^[0-9]{2}/, range: "month" },
  { layout: "-", value: /^-/ },
  { layout: "02", value: /^[0-9]{1,2}/ },
  { layout: "T", value: /^T/ },
  { layout: "15", value: /^[0-9]{1,2}/, range: "hour" },
  { layout: ":", value: /^:/ },
  { layout: "04", value: /^[0-9]{2}/, range: "minute" },
  { layout: ":", value: /^:/ },
  // Seconds may carry a fraction even where the layout has none, as Go accepts.
  { layout: "05", value: /^[0-9]{2}(?:[.,][0-9]+)?/, range: "second" },
  { layout: "Z07:00", value: /^(?:Z|[+-][0-9]{2}:[0-9]{2})/ },
];

function daysIn(month: number, year: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/**
 * time.Parse(time.RFC3339, s), with Go's error text (`parsing time "x" as "2006-01-02T15:04:05Z07:00":
 * cannot parse "x" as "2006"`, `... month out of range`); the instant in milliseconds.
 */
export function parseRfc3339(s: string): number {
  const cannot = (rest: string, element: string) =>
    errors.badRequest(
      `parsing time ${goQuote(s)} as ${goQuote(RFC3339)}: cannot parse ${goQuote(rest)} as ${goQuote(element)}`,
    );
  const outOfRange = (what: string) => errors.badRequest(`parsing time ${goQuote(s)}: ${what} out of range`);
  const parts: string[] = [];
  let rest = s;
  for (const element of ELEMENTS) {
    const m = element.value.exec(rest);
    if (!m) throw cannot(rest, element.layout);
    parts.push(m[0]);
    rest = rest.slice(m[0].length);
    const n = Number(m[0].replace(",", "."));
    if (element.range === "month" && (n < 1 || n > 12)) throw outOfRange("month");
    if (element.range === "hour" && n > 23) throw outOfRange("hour");
    if (element.range === "minute" && n > 59) throw outOfRange("minute");
    if (element.range === "second" && Math.floor(n) > 59) throw outOfRange("second");
  }
  if (rest !== "") throw errors.badRequest(`parsing time ${goQuote(s)}: extra text: ${goQuote(rest)}`);
  const [year, , month, , day, , hour, , minute, , second, zone] = parts.map((p) => p.replace(",", ".")) as [
    string,
    string,
    string,
    string,
    string,
    string,
    string,
    string,
    string,
    string,
    string,
    string,
  ];
  if (Number(day) < 1 || Number(day) > daysIn(Number(month), Number(year))) throw outOfRange("day");
  const offsetMinutes =
    zone === "Z"
      ? 0
      : (zone[0] === "-" ? -1 : 1) * (Number(zone.slice(1, 3)) * 60 + Number(zone.slice(4, 6)));
  if (zone !== "Z" && (Number(zone.slice(1, 3)) > 24 || Number(zone.slice(4, 6)) > 60))
    throw outOfRange(Number(zone.slice(1, 3)) > 24 ? "time zone offset hour" : "time zone offset minute");
  const utc = Date.UTC(
    Number(year),
    Number(month) - 1,
    Number(day),
    Number(hour),
    Number(minute),
    Math.floor(Number(second)),
  );
  return utc - offsetMinutes * 60_000;
}

/** An instant as Go's Format(time.RFC3339) writes it in UTC: whole seconds, `Z`. */
function formatRfc3339(ms: number): string {
  return `${new Date(Math.floor(ms / 1000) * 1000).toISOString().slice(0, 19)}Z`;
}

/** PodLogOptions from the query; 400 when a value does not convert, 422 when it is invalid. */
export function logOptions(q: URLSearchParams, podName: string): LogOptions {
  const sinceTimeParam = q.get("sinceTime");
  // Empty (or "null") is the zero time, which still counts as given.
  const sinceTime =
    sinceTimeParam === null
      ? undefined
      : sinceTimeParam === "" || sinceTimeParam === "null"
        ? "0001-01-01T00:00:00Z"
        : formatRfc3339(parseRfc3339(sinceTimeParam));
  const options: LogOptions = {
    container: q.get("container") ?? "",
    follow: bool(q, "follow"),
    previous: bool(q, "previous"),
    timestamps: bool(q, "timestamps"),
    sinceSeconds: optionalInt64(q, "sinceSeconds"),
    sinceTime,
    tailLines: optionalInt64(q, "tailLines"),
    limitBytes: optionalInt64(q, "limitBytes"),
    insecureSkipTLSVerifyBackend: bool(q, "insecureSkipTLSVerifyBackend"),
  };
  const causes: {
    field: string;
    type: "FieldValueInvalid" | "FieldValueForbidden";
    value?: unknown;
    detail: string;
  }[] = [];
  if (options.tailLines !== undefined && options.tailLines < 0n)
    causes.push({
      field: "tailLines",
      type: "FieldValueInvalid",
      value: Number(options.tailLines),
      detail: "must be greater than or equal to 0",
    });
  if (options.limitBytes !== undefined && options.limitBytes < 1n)
    causes.push({
      field: "limitBytes",
      type: "FieldValueInvalid",
      value: Number(options.limitBytes),
      detail: "must be greater than 0",
    });
  if (options.sinceSeconds !== undefined && options.sinceTime !== undefined)
    causes.push({
      field: "",
      type: "FieldValueForbidden",
      detail: "at most one of `sinceTime` or `sinceSeconds` may be specified",
    });
  else if (options.sinceSeconds !== undefined && options.sinceSeconds < 1n)
    causes.push({
      field: "sinceSeconds",
      type: "FieldValueInvalid",
      value: Number(options.sinceSeconds),
      detail: "must be greater than 0",
    });
  if (causes.length > 0) throw errors.invalid({ group: "", kind: "PodLogOptions" }, podName, causes);
  return options;
}

/** PodExecOptions / PodAttachOptions from the query (`command` for exec only). */
export function streamOptions(q: URLSearchParams, exec: boolean): StreamOptions {
  return {
    container: q.get("container") ?? "",
    stdin: bool(q, "stdin"),
    stdout: bool(q, "stdout"),
    stderr: bool(q, "stderr"),
    tty: bool(q, "tty"),
    command: exec ? q.getAll("command") : [],
  };
}

/** PodPortForwardOptions' ports: repeated or comma-separated, each a 16-bit number (Go's error text). */
export function portForwardPorts(q: URLSearchParams): number[] {
  const ports: number[] = [];
  for (const value of q.getAll("ports")) {
    for (const v of value.split(",")) {
      if (!/^[0-9]+$/.test(v))
        throw errors.badRequest(
          `cannot convert to []int32: strconv.ParseUint: parsing ${goQuote(v)}: invalid syntax`,
        );
      if (BigInt(v) > 65535n)
        throw errors.badRequest(
          `cannot convert to []int32: strconv.ParseUint: parsing ${goQuote(v)}: value out of range`,
        );
      ports.push(Number(v));
    }
  }
  return ports;
}

/** The options object admission sees for a CONNECT (v1, fields left out when empty). */
export function connectOptionsObject(kind: string, fields: Record<string, unknown>): JsonObject {
  const out: JsonObject = { kind, apiVersion: "v1" };
  for (const [name, value] of Object.entries(fields)) {
    if (value === false || value === "" || (Array.isArray(value) && value.length === 0)) continue;
    out[name] = value as JsonObject[string];
  }
  return out;
}

/** Go's url.QueryEscape: everything but letters, digits and `-_.~` escaped, spaces as `+`. */
function queryEscape(s: string): string {
  return encodeURIComponent(s)
    .replace(/[!'()*]/g, (c) => `%${(c.codePointAt(0) as number).toString(16).toUpperCase()}`)
    .replace(/%20/g, "+");
}

/** Go's url.Values.Encode: keys sorted, each key's values in order. */
export function encodeQuery(values: readonly (readonly [string, string])[]): string {
  const byKey = new Map<string, string[]>();
  for (const [k, v] of values) byKey.set(k, [...(byKey.get(k) ?? []), v]);
  return [...byKey.keys()]
    .sort()
    .flatMap((k) => (byKey.get(k) ?? []).map((v) => `${queryEscape(k)}=${queryEscape(v)}`))
    .join("&");
}

/** The kubelet's containerLogs query (upstream's LogLocation). */
export function kubeletLogQuery(o: LogOptions): string {
  const params: [string, string][] = [];
  if (o.follow) params.push(["follow", "true"]);
  if (o.previous) params.push(["previous", "true"]);
  if (o.timestamps) params.push(["timestamps", "true"]);
  if (o.sinceSeconds !== undefined) params.push(["sinceSeconds", String(o.sinceSeconds)]);
  if (o.sinceTime !== undefined) params.push(["sinceTime", o.sinceTime]);
  if (o.tailLines !== undefined) params.push(["tailLines", String(o.tailLines)]);
  if (o.limitBytes !== undefined) params.push(["limitBytes", String(o.limitBytes)]);
  return encodeQuery(params);
}

/** The kubelet's exec/attach query: its own names for the streams (upstream's streamParams). */
export function kubeletStreamQuery(o: StreamOptions): string {
  const params: [string, string][] = [];
  if (o.stdin) params.push(["input", "1"]);
  if (o.stdout) params.push(["output", "1"]);
  if (o.stderr) params.push(["error", "1"]);
  if (o.tty) params.push(["tty", "1"]);
  for (const c of o.command) params.push(["command", c]);
  return encodeQuery(params);
}

/** The kubelet's portForward query: the ports joined by commas. */
export function kubeletPortForwardQuery(ports: readonly number[]): string {
  return ports.length > 0 ? encodeQuery([["port", ports.join(",")]]) : "";
}
