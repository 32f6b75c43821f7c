// Name and key rules shared by the built-in kinds, with the same detail texts kube-apiserver
// returns. Each check answers a list of problems (empty when the value is fine); callers turn
// them into field errors. Lengths count UTF-8 bytes, as upstream does.

export const DNS1123_LABEL_MAX_LENGTH = 63;
export const DNS1123_SUBDOMAIN_MAX_LENGTH = 253;
export const QUALIFIED_NAME_MAX_LENGTH = 63;
export const LABEL_VALUE_MAX_LENGTH = 63;
/** Total bytes of all annotation keys and values of one object. */
export const TOTAL_ANNOTATION_SIZE_LIMIT = 256 * 1024;

const DNS1123_LABEL_FMT = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
const DNS1123_LABEL_MSG =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character";
const DNS1123_SUBDOMAIN_FMT = `${DNS1123_LABEL_FMT}(\\.${DNS1123_LABEL_FMT})*`;
const DNS1123_SUBDOMAIN_MSG =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
const QNAME_CHAR_FMT = "[A-Za-z0-9]";
const QNAME_EXT_CHAR_FMT = "[-A-Za-z0-9_.]";
const QUALIFIED_NAME_FMT = `(${QNAME_CHAR_FMT}${QNAME_EXT_CHAR_FMT}*)?${QNAME_CHAR_FMT}`;
const QUALIFIED_NAME_MSG =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const LABEL_VALUE_FMT = `(${QUALIFIED_NAME_FMT})?`;
const LABEL_VALUE_MSG =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const CONFIG_MAP_KEY_FMT = "[-._a-zA-Z0-9]+";
const CONFIG_MAP_KEY_MSG = "a valid config key must consist of alphanumeric characters, '-', '_' or '.'";

const dns1123Label = new RegExp(`^${DNS1123_LABEL_FMT}$`);
const dns1123Subdomain = new RegExp(`^${DNS1123_SUBDOMAIN_FMT}$`);
const qualifiedName = new RegExp(`^${QUALIFIED_NAME_FMT}$`);
const labelValue = new RegExp(`^${LABEL_VALUE_FMT}$`);
const configMapKey = new RegExp(`^${CONFIG_MAP_KEY_FMT}$`);

/** Bytes of a string in UTF-8, the unit upstream's length limits use. */
export function byteLength(value: string): number {
  return Buffer.byteLength(value, "utf8");
}

export function maxLenError(length: number): string {
  return `must be no more than ${length} characters`;
}

export function emptyError(): string {
  return "must be non-empty";
}

/** `<msg> (e.g. 'a',  or 'b', regex used for validation is '<fmt>')`, spacing as upstream's. */
export function regexError(message: string, format: string, ...examples: string[]): string {
  if (examples.length === 0) return `${message} (regex used for validation is '${format}')`;
  return `${message} (e.g. ${examples.map((e) => `'${e}', `).join(" or ")}regex used for validation is '${format}')`;
}

export function isDNS1123Label(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > DNS1123_LABEL_MAX_LENGTH) errs.push(maxLenError(DNS1123_LABEL_MAX_LENGTH));
  if (!dns1123Label.test(value)) {
    // A valid subdomain that is not a label can only be one with dots (length was checked above).
    if (dns1123Subdomain.test(value)) errs.push("must not contain dots");
    else errs.push(regexError(DNS1123_LABEL_MSG, DNS1123_LABEL_FMT, "my-name", "123-abc"));
  }
  return errs;
}

const DNS1035_LABEL_FMT = "[a-z]([-a-z0-9]*[a-z0-9])?";
const DNS1035_LABEL_MSG =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character";
const dns1035Label = new RegExp(`^${DNS1035_LABEL_FMT}$`);

/** Service names: a DNS label that starts with a letter. */
export function isDNS1035Label(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > DNS1123_LABEL_MAX_LENGTH) errs.push(maxLenError(DNS1123_LABEL_MAX_LENGTH));
  if (!dns1035Label.test(value))
    errs.push(regexError(DNS1035_LABEL_MSG, DNS1035_LABEL_FMT, "my-name", "abc-123"));
  return errs;
}

export function isDNS1123Subdomain(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > DNS1123_SUBDOMAIN_MAX_LENGTH) errs.push(maxLenError(DNS1123_SUBDOMAIN_MAX_LENGTH));
  if (!dns1123Subdomain.test(value))
    errs.push(regexError(DNS1123_SUBDOMAIN_MSG, DNS1123_SUBDOMAIN_FMT, "example.com"));
  return errs;
}

/** A "qualified name": `name` or `dns-subdomain-prefix/name`, as label keys and finalizers are. */
export function isQualifiedName(value: string): string[] {
  const errs: string[] = [];
  const parts = value.split("/");
  let name: string;
  if (parts.length === 1) {
    name = parts[0] ?? "";
  } else if (parts.length === 2) {
    const prefix = parts[0] ?? "";
    name = parts[1] ?? "";
    if (prefix.length === 0) errs.push(`prefix part ${emptyError()}`);
    else for (const msg of isDNS1123Subdomain(prefix)) errs.push(`prefix part ${msg}`);
  } else {
    errs.push(
      `a qualified name ${regexError(QUALIFIED_NAME_MSG, QUALIFIED_NAME_FMT, "MyName", "my.name", "123-abc")} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
    );
    return errs;
  }
  if (name.length === 0) errs.push(`name part ${emptyError()}`);
  else if (byteLength(name) > QUALIFIED_NAME_MAX_LENGTH)
    errs.push(`name part ${maxLenError(QUALIFIED_NAME_MAX_LENGTH)}`);
  if (!qualifiedName.test(name)) {
    errs.push(
      `name part ${regexError(QUALIFIED_NAME_MSG, QUALIFIED_NAME_FMT, "MyName", "my.name", "123-abc")}`,
    );
  }
  return errs;
}

export function isValidLabelValue(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > LABEL_VALUE_MAX_LENGTH) errs.push(maxLenError(LABEL_VALUE_MAX_LENGTH));
  if (!labelValue.test(value))
    errs.push(regexError(LABEL_VALUE_MSG, LABEL_VALUE_FMT, "MyValue", "my_value", "12345"));
  return errs;
}

/** A key of a ConfigMap's or Secret's data. */
export function isConfigMapKey(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > DNS1123_SUBDOMAIN_MAX_LENGTH) errs.push(maxLenError(DNS1123_SUBDOMAIN_MAX_LENGTH));
  if (!configMapKey.test(value)) {
    errs.push(regexError(CONFIG_MAP_KEY_MSG, CONFIG_MAP_KEY_FMT, "key.name", "KEY_NAME", "key-name"));
  }
  if (value === ".") errs.push("must not be '.'");
  else if (value === "..") errs.push("must not be '..'");
  else if (value.startsWith("..")) errs.push("must not start with '..'");
  return errs;
}

/** A name that is safe as one segment of a URL path or storage key. */
export function isValidPathSegmentName(name: string): string[] {
  for (const illegal of [".", ".."]) {
    if (name === illegal) return [`may not be '${illegal}'`];
  }
  return isValidPathSegmentPrefix(name);
}

/** Like isValidPathSegmentName for a generateName prefix: only the characters are checked. */
export function isValidPathSegmentPrefix(name: string): string[] {
  const errs: string[] = [];
  for (const illegal of ["/", "%"]) {
    if (name.includes(illegal)) errs.push(`may not contain '${illegal}'`);
  }
  return errs;
}

export type NameRule = "dns-subdomain" | "dns-label" | "dns-1035-label" | "path-segment";

/**
 * Checks an object name (or, with `prefix`, a generateName) against a kind's rule. A prefix may
 * end in '-' since a random suffix follows it.
 */
export function validateName(rule: NameRule, name: string, prefix = false): string[] {
  switch (rule) {
    case "path-segment":
      return prefix ? isValidPathSegmentPrefix(name) : isValidPathSegmentName(name);
    case "dns-label":
      return isDNS1123Label(prefix ? maskTrailingDash(name) : name);
    case "dns-1035-label":
      return isDNS1035Label(prefix ? maskTrailingDash(name) : name);
    case "dns-subdomain":
      return isDNS1123Subdomain(prefix ? maskTrailingDash(name) : name);
  }
}

// Upstream replaces the last two characters by "a" (not just the dash); kept for identical results.
function maskTrailingDash(name: string): string {
  if (name.length > 1 && name.endsWith("-")) return `${name.slice(0, -2)}a`;
  return name;
}

/** Total bytes of all annotation keys and values. */
export function annotationsSize(annotations: Readonly<Record<string, unknown>>): number {
  let total = 0;
  for (const [k, v] of Object.entries(annotations))
    total += byteLength(k) + byteLength(typeof v === "string" ? v : "");
  return total;
}

export function isAnnotationsSizeValid(annotations: Readonly<Record<string, unknown>>): boolean {
  return annotationsSize(annotations) <= TOTAL_ANNOTATION_SIZE_LIMIT;
}
