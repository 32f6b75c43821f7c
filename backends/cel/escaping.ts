// Property names as CEL identifiers. A property is accessible when it matches
// [a-zA-Z_.-/][a-zA-Z0-9_.-/]*; `__`, `.`, `-` and `/` are spelled out, and a name equal to a
// reserved word is wrapped in double underscores.

/** Words CEL reserves; a property with exactly this name is accessed as `__<word>__`. */
export const CEL_RESERVED_WORDS: ReadonlySet<string> = new Set([
  "true",
  "false",
  "null",
  "in",
  "as",
  "break",
  "const",
  "continue",
  "else",
  "for",
  "function",
  "if",
  "import",
  "let",
  "loop",
  "package",
  "namespace",
  "return",
  "var",
  "void",
  "while",
]);

const ACCESSIBLE = /^[a-zA-Z_./-][a-zA-Z0-9_./-]*$/;
const PLAIN = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const SPECIAL = /__|[./-]/g;
const ESCAPES: Readonly<Record<string, string>> = {
  __: "__underscores__",
  ".": "__dot__",
  "-": "__dash__",
  "/": "__slash__",
};

/** The CEL identifier of property `name`, or undefined when CEL cannot access the property. */
export function escapePropertyName(name: string): string | undefined {
  if (!ACCESSIBLE.test(name)) return undefined;
  if (CEL_RESERVED_WORDS.has(name)) return `__${name}__`;
  if (PLAIN.test(name) && !name.includes("__")) return name;
  return name.replace(SPECIAL, (m) => ESCAPES[m] ?? m);
}

const UNESCAPES: Readonly<Record<string, string>> = {
  underscores: "__",
  dot: ".",
  dash: "-",
  slash: "/",
};

/** The property name of a CEL identifier produced by escapePropertyName, or undefined if malformed. */
export function unescapePropertyName(identifier: string): string | undefined {
  let ok = true;
  const out = identifier.replace(/__[^_]+__/g, (m) => {
    const inner = m.slice(2, -2);
    const plain = UNESCAPES[inner];
    if (plain !== undefined) return plain;
    if (CEL_RESERVED_WORDS.has(inner) && m.length === identifier.length) return inner;
    ok = false;
    return "";
  });
  return ok ? out : undefined;
}
