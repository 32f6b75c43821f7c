// String formats the CRD validator checks (upstream's supported list; any other format is ignored,
// as upstream strips it). Names are compared without dashes (`date-time` = `datetime`). Every
// checker is linear in its input: user schemas and user values meet here.

export type FormatCheck = (value: string) => boolean;

const DIGIT = "[0-9]";

const uuid = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
const uuid3 = /^[0-9a-f]{8}-?[0-9a-f]{4}-?3[0-9a-f]{3}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
const uuid4 = /^[0-9a-f]{8}-?[0-9a-f]{4}-?4[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$/i;
const uuid5 = /^[0-9a-f]{8}-?[0-9a-f]{4}-?5[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$/i;
const hostname =
  /^([a-zA-Z0-9\p{S}\p{L}]((-?[a-zA-Z0-9\p{S}\p{L}]{0,62})?)|([a-zA-Z0-9\p{S}\p{L}](([-a-zA-Z0-9\p{S}\p{L}]{0,61}[a-zA-Z0-9\p{S}\p{L}])?)(\.)){1,}([a-zA-Z\p{L}]){2,63})$/u;
// Empty is valid: Go's base64 decoding accepts it, and an empty Secret value is common.
const base64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=|[A-Za-z0-9+/]{4})?$/;
const hexColor = /^#?([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/;
const RGB_PART = "(0|[1-9][0-9]?|1[0-9][0-9]?|2[0-4][0-9]|25[0-5])";
const SP = "[\\t\\n\\f\\r ]*";
const rgbColor = new RegExp(`^rgb\\(${SP}${RGB_PART}${SP},${SP}${RGB_PART}${SP},${SP}${RGB_PART}${SP}\\)$`);
const ssn = new RegExp(`^${DIGIT}{3}[- ]?${DIGIT}{2}[- ]?${DIGIT}{4}$`);
const creditCard =
  /^(?:4[0-9]{12}(?:[0-9]{3})?|5[1-5][0-9]{14}|6(?:011|5[0-9][0-9])[0-9]{12}|3[47][0-9]{13}|3(?:0[0-5]|[68][0-9])[0-9]{11}|(?:2131|1800|35[0-9]{3})[0-9]{11})$/;
const isbn10 = /^(?:[0-9]{9}X|[0-9]{10})$/;
const isbn13 = /^(?:[0-9]{13})$/;
const dateTimeClock = /^([0-9]{2}):([0-9]{2}):([0-9]{2})(.[0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))$/;
const bsonObjectId = /^[0-9a-fA-F]{24}$/;

// RFC 5322 address as Go's net/mail accepts it, without comments or encoded words.
const ATEXT = '[^\\s()\\[\\];@\\\\,<>":.\\x00-\\x1f\\x7f]';
const QUOTED = '"(?:[^"\\\\\\r\\n]|\\\\.)*"';
const ADDR = `(?:${ATEXT}+(?:\\.${ATEXT}+)*|${QUOTED})@${ATEXT}+(?:\\.${ATEXT}+)*`;
const PHRASE = `(?:${ATEXT}|[.\\t ]|${QUOTED})*`;
const email = new RegExp(`^[\\t ]*(?:${ADDR}|${PHRASE}<${ADDR}>)[\\t ]*$`);

function byteLength(s: string): number {
  return Buffer.byteLength(s, "utf8");
}

function isHostname(s: string): boolean {
  // Length first: it also keeps the regular expression's input small.
  if (byteLength(s) > 255) return false;
  if (!hostname.test(s)) return false;
  return s.split(".").every((p) => byteLength(p) <= 63);
}

function isDate(s: string): boolean {
  const m = /^([0-9]{4})-([0-9]{2})-([0-9]{2})$/.exec(s);
  if (!m) return false;
  const year = Number(m[1]);
  const month = Number(m[2]);
  const day = Number(m[3]);
  if (month < 1 || month > 12 || day < 1) return false;
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1] ?? 0;
  return day <= days;
}

function isDateTime(s: string): boolean {
  if (s.length < 4) return false;
  const parts = s.toLowerCase().split("t");
  if (parts.length < 2 || !isDate(parts[0] ?? "")) return false;
  const m = dateTimeClock.exec(parts[1] ?? "");
  if (!m) return false;
  return (m[1] ?? "") <= "23" && (m[2] ?? "") <= "59" && (m[3] ?? "") <= "59";
}

const GO_DURATION_UNITS = new Set(["ns", "us", "µs", "μs", "ms", "s", "m", "h"]);

// Go's time.ParseDuration grammar: [-+]? ( digits [. digits] unit )+, or "0".
const DURATION_TERM = /([0-9]*)(?:\.([0-9]*))?([^0-9.]*)/y;

function isGoDuration(s: string): boolean {
  let pos = s.startsWith("-") || s.startsWith("+") ? 1 : 0;
  if (s.length - pos === 1 && s[pos] === "0") return true;
  if (pos === s.length) return false;
  while (pos < s.length) {
    DURATION_TERM.lastIndex = pos;
    const m = DURATION_TERM.exec(s);
    if (!m || m[0] === "") return false;
    const whole = m[1] ?? "";
    const frac = m[2];
    if (whole === "" && (frac === undefined || frac === "")) return false;
    if (!GO_DURATION_UNITS.has(m[3] ?? "")) return false;
    // An integer part beyond 2^63 ns overflows; upstream rejects it.
    if (whole.length > 19) return false;
    pos += m[0].length;
  }
  return true;
}

const DURATION_WORDS: readonly (readonly string[])[] = [
  ["ns", "nano"],
  ["us", "µs", "micro"],
  ["ms", "milli"],
  ["s", "sec"],
  ["m", "min"],
  ["h", "hr", "hour"],
  ["d", "day"],
  ["w", "wk", "week"],
];

// Go's durations, or the lenient "<n> <unit word>" form (`3 days`, `5 seconds`).
function isDuration(s: string): boolean {
  if (isGoDuration(s)) return true;
  for (const m of s.matchAll(/([0-9]+)\s*([A-Za-zµ]+)/g)) {
    const unit = (m[2] ?? "").toLowerCase().trim();
    for (const variants of DURATION_WORDS) {
      const last = variants.length - 1;
      if (variants.some((v, i) => (i === last && unit.startsWith(v)) || v === unit)) return true;
    }
  }
  return false;
}

// IPv4 as Go's lenient parser reads it: four decimal parts ≤ 255, leading zeros allowed.
function parseIPv4(s: string): boolean {
  const parts = s.split(".");
  if (parts.length !== 4) return false;
  return parts.every((p) => /^[0-9]{1,3}$/.test(p) && Number(p) <= 255);
}

function parseIPv6(s: string, sloppy: boolean): boolean {
  let ellipsis = false;
  let groups = 0;
  let i = 0;
  if (s.startsWith("::")) {
    ellipsis = true;
    i = 2;
    if (i === s.length) return true;
  }
  while (i < s.length) {
    const hex = /^[0-9a-fA-F]{1,4}/.exec(s.slice(i, i + 5));
    if (!hex) return false;
    // An IPv4 tail stands for the last two groups.
    if (s[i + hex[0].length] === ".") {
      const tail = s.slice(i);
      if (groups > 6 || !(sloppy ? parseIPv4(tail) : parseStrictIPv4(tail))) return false;
      groups += 2;
      break;
    }
    groups++;
    i += hex[0].length;
    if (i === s.length) break;
    if (s[i] !== ":") return false;
    i++;
    if (s[i] === ":") {
      if (ellipsis) return false;
      ellipsis = true;
      i++;
    } else if (i === s.length) {
      return false;
    }
    if (groups > 8) return false;
  }
  return ellipsis ? groups < 8 : groups === 8;
}

function parseStrictIPv4(s: string): boolean {
  return parseIPv4(s) && s.split(".").every((p) => p === "0" || !p.startsWith("0"));
}

function isIP(s: string, sloppy: boolean): boolean {
  return (sloppy ? parseIPv4(s) : parseStrictIPv4(s)) || parseIPv6(s, sloppy);
}

function isCIDR(s: string): boolean {
  const i = s.indexOf("/");
  if (i < 0) return false;
  const addr = s.slice(0, i);
  const bits = s.slice(i + 1);
  if (!/^[0-9]+$/.test(bits) || bits.length > 4) return false;
  if (parseIPv4(addr)) return Number(bits) <= 32;
  return parseIPv6(addr, true) && Number(bits) <= 128;
}

function isMAC(s: string): boolean {
  if (s.length < 14) return false;
  const sep = s[2];
  if (sep === ":" || sep === "-") {
    if ((s.length + 1) % 3 !== 0) return false;
    const n = (s.length + 1) / 3;
    if (n !== 6 && n !== 8 && n !== 20) return false;
    const parts = s.split(sep);
    return parts.length === n && parts.every((p) => /^[0-9a-fA-F]{2}$/.test(p));
  }
  if (s[4] === ".") {
    if ((s.length + 1) % 5 !== 0) return false;
    const n = (2 * (s.length + 1)) / 5;
    if (n !== 6 && n !== 8 && n !== 20) return false;
    const parts = s.split(".");
    return parts.length === n / 2 && parts.every((p) => /^[0-9a-fA-F]{4}$/.test(p));
  }
  return false;
}

const HOST_OK = /^[A-Za-z0-9\-._~!$&'()*+,;=:[\]<>"%\u0080-\u{10ffff}]*$/u;
const USERINFO_OK = /^[A-Za-z0-9\-._:~!$&'()*+,;=%@\u0080-\u{10ffff}]*$/u;
const BAD_ESCAPE = /%(?![0-9a-fA-F]{2})/;

// Go's url.ParseRequestURI: an absolute URI or an absolute path.
function isRequestURI(s: string): boolean {
  if (s === "") return false;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20 || c === 0x7f) return false;
  }
  if (s === "*") return true;
  let rest = s;
  let scheme = "";
  const m = /^[A-Za-z][A-Za-z0-9+\-.]*:/.exec(s);
  if (m) {
    scheme = m[0].slice(0, -1);
    rest = s.slice(m[0].length);
  } else if (s.startsWith(":")) {
    return false;
  }
  const q = rest.indexOf("?");
  if (q >= 0) rest = rest.slice(0, q);
  if (!rest.startsWith("/")) return scheme !== "";
  if (scheme !== "" && rest.startsWith("//")) {
    const authorityEnd = rest.indexOf("/", 2);
    const authority = authorityEnd < 0 ? rest.slice(2) : rest.slice(2, authorityEnd);
    rest = authorityEnd < 0 ? "" : rest.slice(authorityEnd);
    const at = authority.lastIndexOf("@");
    const host = at < 0 ? authority : authority.slice(at + 1);
    if (at >= 0 && !USERINFO_OK.test(authority.slice(0, at))) return false;
    if (host.startsWith("[")) {
      const close = host.indexOf("]");
      if (close < 0) return false;
      const after = host.slice(close + 1);
      if (after !== "" && !/^:[0-9]*$/.test(after)) return false;
    } else {
      const colon = host.lastIndexOf(":");
      if (colon >= 0 && !/^:[0-9]*$/.test(host.slice(colon))) return false;
      if (!HOST_OK.test(host) || BAD_ESCAPE.test(host)) return false;
    }
  }
  return !BAD_ESCAPE.test(rest);
}

function isISBN10(s: string): boolean {
  const v = s.replace(/[\t\n\f\r -]+/g, "");
  if (!isbn10.test(v)) return false;
  let sum = 0;
  for (let i = 0; i < 9; i++) sum += (i + 1) * Number(v[i]);
  sum += v[9] === "X" ? 100 : 10 * Number(v[9]);
  return sum % 11 === 0;
}

function isISBN13(s: string): boolean {
  const v = s.replace(/[\t\n\f\r -]+/g, "");
  if (!isbn13.test(v)) return false;
  let sum = 0;
  for (let i = 0; i < 12; i++) sum += (i % 2 === 0 ? 1 : 3) * Number(v[i]);
  return Number(v[12]) - ((10 - (sum % 10)) % 10) === 0;
}

function isCreditCard(s: string): boolean {
  const v = s.replace(/[^0-9]+/g, "");
  if (!creditCard.test(v)) return false;
  let sum = 0;
  let double = false;
  for (let i = v.length - 1; i >= 0; i--) {
    let d = Number(v[i]);
    if (double) {
      d *= 2;
      sum += d >= 10 ? (d % 10) + 1 : d;
    } else {
      sum += d;
    }
    double = !double;
  }
  return sum % 10 === 0;
}

const CHECKS: ReadonlyMap<string, FormatCheck> = new Map<string, FormatCheck>([
  ["bsonobjectid", (s) => bsonObjectId.test(s)],
  ["uri", isRequestURI],
  ["email", (s) => email.test(s)],
  ["hostname", isHostname],
  ["ipv4", (s) => isIP(s, true) && s.includes(".")],
  ["ipv6", (s) => isIP(s, false) && s.includes(":")],
  ["cidr", isCIDR],
  ["mac", isMAC],
  ["uuid", (s) => uuid.test(s)],
  ["uuid3", (s) => uuid3.test(s)],
  ["uuid4", (s) => uuid4.test(s)],
  ["uuid5", (s) => uuid5.test(s)],
  ["isbn", (s) => isISBN10(s) || isISBN13(s)],
  ["isbn10", isISBN10],
  ["isbn13", isISBN13],
  ["creditcard", isCreditCard],
  ["ssn", (s) => s.length === 11 && ssn.test(s)],
  ["hexcolor", (s) => hexColor.test(s)],
  ["rgbcolor", (s) => rgbColor.test(s)],
  ["byte", (s) => base64.test(s)],
  ["password", () => true],
  ["date", isDate],
  ["duration", isDuration],
  ["datetime", isDateTime],
]);

/** The format's name as the registry compares it. */
export function normalizeFormat(name: string): string {
  return name.replaceAll("-", "");
}

/** The checker of a format upstream validates, or undefined for a format it ignores. */
export function formatCheck(name: string): FormatCheck | undefined {
  return CHECKS.get(normalizeFormat(name));
}
