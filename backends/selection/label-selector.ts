// Label selectors as list and watch requests carry them (`labelSelector=`): equality,
// inequality, set membership and existence, joined by commas (all must hold).

export type LabelRequirement =
  | { readonly key: string; readonly op: "exists" | "!exists" }
  | { readonly key: string; readonly op: "=" | "!="; readonly value: string }
  | { readonly key: string; readonly op: "in" | "notin"; readonly values: ReadonlySet<string> };

export interface LabelSelector {
  readonly requirements: readonly LabelRequirement[];
  /** True when the selector selects everything (no requirements). */
  readonly empty: boolean;
  matches(labels: Readonly<Record<string, string>> | undefined): boolean;
}

export class SelectorParseError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SelectorParseError";
  }
}

const NAME = /^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

function checkKey(key: string): void {
  const slash = key.indexOf("/");
  const prefix = slash >= 0 ? key.slice(0, slash) : undefined;
  const name = slash >= 0 ? key.slice(slash + 1) : key;
  if (prefix !== undefined && (prefix.length === 0 || prefix.length > 253 || !DNS_SUBDOMAIN.test(prefix))) {
    throw new SelectorParseError(`invalid label key "${key}": prefix part must be a DNS subdomain`);
  }
  if (name.length === 0 || name.length > 63 || !NAME.test(name)) {
    throw new SelectorParseError(
      `invalid label key "${key}": name part must consist of alphanumeric characters, '-', '_' or '.', ` +
        "and must start and end with an alphanumeric character (at most 63 characters)",
    );
  }
}

function checkValue(value: string): void {
  if (value.length > 63 || (value.length > 0 && !NAME.test(value))) {
    throw new SelectorParseError(
      `invalid label value "${value}": must be 63 characters or less and consist of alphanumeric ` +
        "characters, '-', '_' or '.', starting and ending with an alphanumeric character",
    );
  }
}

type Token = { kind: "word"; text: string } | { kind: "op"; text: string } | { kind: "end" };

const OPERATOR_CHARS = new Set(["!", "=", "(", ")", ","]);

function tokenize(input: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < input.length) {
    const c = input[i] as string;
    if (c === " " || c === "\t" || c === "\n" || c === "\r") {
      i++;
      continue;
    }
    if (c === "!" && input[i + 1] === "=") {
      tokens.push({ kind: "op", text: "!=" });
      i += 2;
    } else if (c === "=" && input[i + 1] === "=") {
      tokens.push({ kind: "op", text: "==" });
      i += 2;
    } else if (OPERATOR_CHARS.has(c)) {
      tokens.push({ kind: "op", text: c });
      i++;
    } else {
      let j = i;
      while (j < input.length && !OPERATOR_CHARS.has(input[j] as string) && !/\s/.test(input[j] as string))
        j++;
      tokens.push({ kind: "word", text: input.slice(i, j) });
      i = j;
    }
  }
  tokens.push({ kind: "end" });
  return tokens;
}

export function parseLabelSelector(input: string): LabelSelector {
  const tokens = tokenize(input);
  let pos = 0;
  const peek = (): Token => tokens[pos] as Token;
  const next = (): Token => tokens[pos++] as Token;
  const fail = (what: string): never => {
    throw new SelectorParseError(`unable to parse requirement: ${what} in label selector "${input}"`);
  };
  const isOp = (t: Token, text: string): boolean => t.kind === "op" && t.text === text;

  const readValueSet = (): Set<string> => {
    if (!isOp(next(), "(")) fail("expected '(' after set operator");
    const values = new Set<string>();
    for (;;) {
      const t = peek();
      let value = "";
      if (t.kind === "word") {
        value = t.text;
        next();
      }
      checkValue(value);
      values.add(value);
      const sep = next();
      if (isOp(sep, ")")) return values;
      if (!isOp(sep, ",")) fail("expected ',' or ')' in value set");
    }
  };

  const requirements: LabelRequirement[] = [];
  if (peek().kind !== "end") {
    for (;;) {
      let requirement: LabelRequirement;
      const first = next();
      if (isOp(first, "!")) {
        const key = next();
        if (key.kind !== "word") fail("expected a key after '!'");
        checkKey((key as { text: string }).text);
        requirement = { key: (key as { text: string }).text, op: "!exists" };
      } else {
        if (first.kind !== "word") fail("expected a key");
        const key = (first as { text: string }).text;
        checkKey(key);
        const op = peek();
        if (op.kind === "end" || isOp(op, ",")) {
          requirement = { key, op: "exists" };
        } else if (isOp(op, "=") || isOp(op, "==") || isOp(op, "!=")) {
          next();
          const v = peek();
          let value = "";
          if (v.kind === "word") {
            value = v.text;
            next();
          }
          checkValue(value);
          requirement = { key, op: isOp(op, "!=") ? "!=" : "=", value };
        } else if (op.kind === "word" && (op.text === "in" || op.text === "notin")) {
          next();
          requirement = { key, op: op.text, values: readValueSet() };
        } else {
          requirement = fail(`unexpected "${op.text}" after key "${key}"`);
        }
      }
      requirements.push(requirement);
      const sep = next();
      if (sep.kind === "end") break;
      if (!isOp(sep, ",")) fail("expected ',' between requirements");
    }
  }
  return makeLabelSelector(requirements);
}

function matchOne(r: LabelRequirement, labels: Readonly<Record<string, string>> | undefined): boolean {
  const has = labels !== undefined && Object.hasOwn(labels, r.key);
  const value = has ? labels[r.key] : undefined;
  switch (r.op) {
    case "exists":
      return has;
    case "!exists":
      return !has;
    case "=":
      return has && value === r.value;
    case "!=":
      return !has || value !== r.value;
    case "in":
      return has && r.values.has(value as string);
    case "notin":
      return !has || !r.values.has(value as string);
  }
}

export function makeLabelSelector(requirements: readonly LabelRequirement[]): LabelSelector {
  return {
    requirements,
    empty: requirements.length === 0,
    matches(labels) {
      for (const r of requirements) if (!matchOne(r, labels)) return false;
      return true;
    },
  };
}

export const everythingLabels: LabelSelector = makeLabelSelector([]);

/**
 * A LabelSelector object (`matchLabels`, `matchExpressions`) as a matcher; an operator the API
 * does not know is a SelectorParseError.
 */
export function labelSelectorFromObject(selector: unknown): LabelSelector {
  const record = (v: unknown): Record<string, unknown> | undefined =>
    typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  const s = record(selector) ?? {};
  const requirements: LabelRequirement[] = [];
  for (const [key, value] of Object.entries(record(s.matchLabels) ?? {})) {
    requirements.push({ key, op: "=", value: String(value) });
  }
  for (const raw of Array.isArray(s.matchExpressions) ? s.matchExpressions : []) {
    const e = record(raw) ?? {};
    const key = String(e.key ?? "");
    const values = new Set(Array.isArray(e.values) ? e.values.map(String) : []);
    switch (e.operator) {
      case "In":
        requirements.push({ key, op: "in", values });
        break;
      case "NotIn":
        requirements.push({ key, op: "notin", values });
        break;
      case "Exists":
        requirements.push({ key, op: "exists" });
        break;
      case "DoesNotExist":
        requirements.push({ key, op: "!exists" });
        break;
      default:
        throw new SelectorParseError(`${JSON.stringify(e.operator)} is not a valid label selector operator`);
    }
  }
  return makeLabelSelector(requirements);
}
