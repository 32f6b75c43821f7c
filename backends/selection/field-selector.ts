// Field selectors (`fieldSelector=`): `field=value`, `field==value` and `field!=value` terms
// joined by commas. Values escape `\`, `,` and `=` with a backslash.
import { SelectorParseError } from "./label-selector.ts";

export interface FieldRequirement {
  readonly field: string;
  readonly op: "=" | "!=";
  readonly value: string;
}

export interface FieldSelector {
  readonly requirements: readonly FieldRequirement[];
  readonly empty: boolean;
  matches(fields: Readonly<Record<string, string>>): boolean;
  /** The value a `field=value` term pins, if any (lets a watch on one name skip others). */
  requiredValue(field: string): string | undefined;
}

/** Split on separators that are not escaped with a backslash. */
function splitUnescaped(input: string, separator: string): string[] {
  const parts: string[] = [];
  let current = "";
  for (let i = 0; i < input.length; i++) {
    const c = input[i] as string;
    if (c === "\\" && i + 1 < input.length) {
      current += c + input[i + 1];
      i++;
    } else if (c === separator) {
      parts.push(current);
      current = "";
    } else {
      current += c;
    }
  }
  parts.push(current);
  return parts;
}

function unescapeValue(value: string, whole: string): string {
  let out = "";
  for (let i = 0; i < value.length; i++) {
    const c = value[i] as string;
    if (c === "\\") {
      const n = value[i + 1];
      if (n !== "\\" && n !== "," && n !== "=") {
        throw new SelectorParseError(
          `invalid field selector "${whole}": invalid escape sequence in "${value}"`,
        );
      }
      out += n;
      i++;
    } else if (c === "," || c === "=") {
      throw new SelectorParseError(`invalid field selector "${whole}": unescaped "${c}" in value "${value}"`);
    } else {
      out += c;
    }
  }
  return out;
}

/** Parse a field selector; `supported` lists the field names the resource can be filtered on. */
export function parseFieldSelector(input: string, supported: ReadonlySet<string>): FieldSelector {
  const requirements: FieldRequirement[] = [];
  if (input.trim() !== "") {
    for (const term of splitUnescaped(input, ",")) {
      const match = /^([^=!]*)(!=|==|=)(.*)$/s.exec(term);
      if (!match) throw new SelectorParseError(`invalid selector: '${input}'; can't understand '${term}'`);
      const field = (match[1] as string).trim();
      if (!supported.has(field)) throw new SelectorParseError(`field label not supported: ${field}`);
      requirements.push({
        field,
        op: match[2] === "!=" ? "!=" : "=",
        value: unescapeValue(match[3] as string, input),
      });
    }
  }
  return makeFieldSelector(requirements);
}

export function makeFieldSelector(requirements: readonly FieldRequirement[]): FieldSelector {
  return {
    requirements,
    empty: requirements.length === 0,
    matches(fields) {
      for (const r of requirements) {
        const actual = fields[r.field] ?? "";
        if ((actual === r.value) !== (r.op === "=")) return false;
      }
      return true;
    },
    requiredValue(field) {
      return requirements.find((r) => r.field === field && r.op === "=")?.value;
    },
  };
}

export const everythingFields: FieldSelector = makeFieldSelector([]);
