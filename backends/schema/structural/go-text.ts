// Values printed the way Go's fmt prints them in upstream messages (%q, %v of float64).

const ESCAPES: Readonly<Record<string, string>> = {
  "\x07": "\\a",
  "\b": "\\b",
  "\f": "\\f",
  "\n": "\\n",
  "\r": "\\r",
  "\t": "\\t",
  "\v": "\\v",
  "\\": "\\\\",
  '"': '\\"',
};

/** Go's %q (strconv.Quote) for a string. */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const escaped = ESCAPES[ch];
    if (escaped !== undefined) {
      out += escaped;
      continue;
    }
    const code = ch.codePointAt(0) ?? 0;
    if (code < 0x20 || code === 0x7f) out += `\\x${code.toString(16).padStart(2, "0")}`;
    else if ((code >= 0x80 && code < 0xa0) || code === 0xfffd || (code >= 0xd800 && code <= 0xdfff))
      out +=
        code > 0xffff
          ? `\\U${code.toString(16).padStart(8, "0")}`
          : `\\u${code.toString(16).padStart(4, "0")}`;
    else out += ch;
  }
  return `${out}"`;
}

/** Go's %v of a float64: shortest digits, in exponent form below 1e-4 and from 1e6 on. */
export function goFloat(v: number): string {
  if (Number.isNaN(v)) return "NaN";
  if (!Number.isFinite(v)) return v > 0 ? "+Inf" : "-Inf";
  if (v === 0) return Object.is(v, -0) ? "-0" : "0";
  const [mantissa = "", exp = "0"] = v.toExponential().split("e");
  const e = Number(exp);
  // %v uses %g with the shortest precision, which switches to exponent form at 1e6.
  if (e < -4 || e >= 6) {
    const sign = e < 0 ? "-" : "+";
    return `${mantissa}e${sign}${String(Math.abs(e)).padStart(2, "0")}`;
  }
  return String(v);
}

/** A JSON number as Go decodes it into interface{}: integers print as int64, others as float64. */
export function goNumber(v: number): string {
  return Number.isInteger(v) && Math.abs(v) < 2 ** 63 ? BigInt(v).toString() : goFloat(v);
}
