// Node selectors as the plugin's configuration and namespace annotation spell them:
// `key=value,key2=value2` (upstream's labels.ConvertSelectorToLabelsMap), with its error texts.

export type LabelMap = Readonly<Record<string, string>>;

const QUALIFIED_FMT = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
const QUALIFIED = new RegExp(`^${QUALIFIED_FMT}$`);
const QUALIFIED_MSG =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const SUBDOMAIN_FMT = "[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*";
const SUBDOMAIN = new RegExp(`^${SUBDOMAIN_FMT}$`);
const SUBDOMAIN_MSG =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
const VALUE_FMT = `(${QUALIFIED_FMT})?`;
const VALUE = new RegExp(`^${VALUE_FMT}$`);
const VALUE_MSG =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";

function regexError(message: string, format: string, ...examples: string[]): string {
  return `${message} (e.g. ${examples.map((e) => `'${e}', `).join(" or ")}regex used for validation is '${format}')`;
}

function keyErrors(key: string): string[] {
  const errs: string[] = [];
  const parts = key.split("/");
  if (parts.length > 2) {
    return [
      `a qualified name ${regexError(QUALIFIED_MSG, QUALIFIED_FMT, "MyName", "my.name", "123-abc")} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
    ];
  }
  const name = parts.length === 2 ? (parts[1] ?? "") : key;
  if (parts.length === 2) {
    const prefix = parts[0] ?? "";
    if (!prefix) errs.push("prefix part must be non-empty");
    else {
      if (Buffer.byteLength(prefix) > 253) errs.push("prefix part must be no more than 253 characters");
      if (!SUBDOMAIN.test(prefix))
        errs.push(`prefix part ${regexError(SUBDOMAIN_MSG, SUBDOMAIN_FMT, "example.com")}`);
    }
  }
  if (!name) errs.push("name part must be non-empty");
  else if (Buffer.byteLength(name) > 63) errs.push("name part must be no more than 63 characters");
  if (!QUALIFIED.test(name))
    errs.push(`name part ${regexError(QUALIFIED_MSG, QUALIFIED_FMT, "MyName", "my.name", "123-abc")}`);
  return errs;
}

function valueErrors(value: string): string[] {
  const errs: string[] = [];
  if (Buffer.byteLength(value) > 63) errs.push("must be no more than 63 characters");
  if (!VALUE.test(value)) errs.push(regexError(VALUE_MSG, VALUE_FMT, "MyValue", "my_value", "12345"));
  return errs;
}

export class SelectorError extends Error {}

/** `a=b,c=d` as a map; "" is the empty map. Throws a SelectorError with upstream's text. */
export function parseNodeSelector(text: string): LabelMap {
  const out: Record<string, string> = {};
  if (text === "") return out;
  for (const label of text.split(",")) {
    const parts = label.split("=");
    if (parts.length !== 2) throw new SelectorError(`invalid selector: [${parts.join(" ")}]`);
    const key = (parts[0] ?? "").trim();
    const kerrs = keyErrors(key);
    if (kerrs.length > 0) throw new SelectorError(`key: Invalid value: "${key}": ${kerrs.join("; ")}`);
    const value = (parts[1] ?? "").trim();
    const verrs = valueErrors(value);
    if (verrs.length > 0) throw new SelectorError(`value: Invalid value: "${value}": ${verrs.join("; ")}`);
    out[key] = value;
  }
  return out;
}

/** Whether a key is in both maps with different values. */
export function conflicts(a: LabelMap, b: LabelMap): boolean {
  return Object.keys(a).some((k) => Object.hasOwn(b, k) && b[k] !== a[k]);
}
