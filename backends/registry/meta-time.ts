// ObjectMeta's times in a body: null, or a string Go's time.Parse reads with the RFC 3339 layout.
// Upstream's decoder refuses anything else before the server would overwrite the field, with Go's
// words: a value of another JSON type is a type error, a string that does not parse is
// time.Parse's error.

const LAYOUT = "2006-01-02T15:04:05Z07:00";
const TIME_FIELDS = ["creationTimestamp", "deletionTimestamp"] as const;

/** Go's quoting in time errors: `"` and `\` escaped, other bytes outside printable ASCII as \xNN. */
function quote(bytes: string): string {
  let out = '"';
  for (let i = 0; i < bytes.length; i++) {
    const c = bytes.charCodeAt(i);
    if (c < 0x20 || c >= 0x80) out += `\\x${c.toString(16).padStart(2, "0")}`;
    else out += c === 0x22 || c === 0x5c ? `\\${bytes[i]}` : bytes[i];
  }
  return `${out}"`;
}

function daysIn(month: number, year: number): number {
  if (month !== 2) return [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1] as number;
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
}

/** time.Parse(time.RFC3339, text)'s error, or undefined when it parses. */
export function rfc3339Error(text: string): string | undefined {
  // Go indexes strings by byte: one character per UTF-8 byte.
  const all = Buffer.from(text, "utf8").toString("latin1");
  let v = all;
  const cannot = (at: string, elem: string) =>
    `parsing time ${quote(all)} as ${quote(LAYOUT)}: cannot parse ${quote(at)} as ${quote(elem)}`;
  const outOfRange = (what: string) => `parsing time ${quote(all)}: ${what} out of range`;
  const digit = (s: string, i: number) => i < s.length && s.charCodeAt(i) >= 0x30 && s.charCodeAt(i) <= 0x39;
  // Go's getnum: one or two digits, exactly two when fixed.
  const num = (fixed: boolean): number | undefined => {
    if (!digit(v, 0)) return undefined;
    const width = digit(v, 1) ? 2 : fixed ? 0 : 1;
    if (width === 0) return undefined;
    const n = Number(v.slice(0, width));
    v = v.slice(width);
    return n;
  };
  const literal = (s: string): string | undefined => {
    for (const c of s) {
      if (v[0] !== c) return cannot(v, s);
      v = v.slice(1);
    }
    return undefined;
  };
  if (!/^\d{4}/.test(v)) return cannot(v, "2006");
  const year = Number(v.slice(0, 4));
  v = v.slice(4);
  const parts: [string, boolean, number, string][] = [
    ["01", true, 13, "month"],
    ["02", true, 100, ""],
    ["15", false, 24, "hour"],
    ["04", true, 60, "minute"],
    ["05", true, 60, "second"],
  ];
  const seps = ["-", "-", "T", ":", ":"];
  const values: number[] = [];
  for (const [i, [elem, fixed, limit, what]] of parts.entries()) {
    const sep = literal(seps[i] as string);
    if (sep) return sep;
    const hold = v;
    const n = num(fixed);
    if (n === undefined) return cannot(hold, elem);
    if (n >= limit || (elem === "01" && n === 0)) return outOfRange(what);
    values.push(n);
  }
  // A fraction of a second is read even though the layout has none.
  if (v.length >= 2 && (v[0] === "." || v[0] === ",") && digit(v, 1)) {
    let n = 2;
    while (digit(v, n)) n++;
    v = v.slice(n);
  }
  const hold = v;
  if (v[0] === "Z") v = v.slice(1);
  else {
    if (v.length < 6 || v[3] !== ":") return cannot(hold, "Z07:00");
    const [sign, hh, mm] = [v[0], v.slice(1, 3), v.slice(4, 6)];
    if (!digit(hh, 0) || !digit(hh, 1) || !digit(mm, 0) || !digit(mm, 1)) return cannot(hold, "Z07:00");
    if (Number(mm) > 60) return outOfRange("time zone offset minute");
    if (Number(hh) > 24) return outOfRange("time zone offset hour");
    if (sign !== "+" && sign !== "-") return cannot(hold, "Z07:00");
    v = v.slice(6);
  }
  if (v !== "") return `parsing time ${quote(all)}: extra text: ${quote(v)}`;
  const [month, day] = values as [number, number];
  if (day < 1 || day > daysIn(month, year)) return outOfRange("day");
  return undefined;
}

function jsonKind(value: unknown): string {
  if (Array.isArray(value)) return "array";
  if (typeof value === "boolean") return "bool";
  return typeof value;
}

/** The decoder's error for the first of metadata's times that is not one, or undefined. */
export function metaTimeError(object: Record<string, unknown>): string | undefined {
  const m = object.metadata;
  if (typeof m !== "object" || m === null || Array.isArray(m)) return undefined;
  for (const field of TIME_FIELDS) {
    const value = (m as Record<string, unknown>)[field];
    if (value === undefined || value === null) continue;
    if (typeof value !== "string")
      // metav1.Time decodes itself with the standard library, whose type error the outer decoder
      // (a fork with its own error type) cannot name the field in.
      return `json: cannot unmarshal ${jsonKind(value)} into Go value of type string`;
    const problem = rfc3339Error(value);
    if (problem) return problem;
  }
  return undefined;
}
