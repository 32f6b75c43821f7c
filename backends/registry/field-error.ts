// One problem with one field of an object, upstream style:
// `spec.replicas: Invalid value: -1: must be greater than or equal to 0`.

export type FieldErrorType =
  | "FieldValueInvalid"
  | "FieldValueRequired"
  | "FieldValueNotFound"
  | "FieldValueNotSupported"
  | "FieldValueForbidden"
  | "FieldValueDuplicate"
  | "FieldValueTooLong"
  | "FieldValueTooMany"
  | "FieldValueTypeInvalid";

export interface FieldError {
  readonly field: string;
  readonly type: FieldErrorType;
  readonly value?: unknown;
  readonly detail?: string;
  readonly supported?: readonly string[];
}

const TYPE_TEXT: Record<FieldErrorType, string> = {
  FieldValueInvalid: "Invalid value",
  FieldValueRequired: "Required value",
  FieldValueNotFound: "Not found",
  FieldValueNotSupported: "Unsupported value",
  FieldValueForbidden: "Forbidden",
  FieldValueDuplicate: "Duplicate value",
  FieldValueTooLong: "Too long",
  FieldValueTooMany: "Too many",
  FieldValueTypeInvalid: "Invalid value",
};

const SHOWS_VALUE = new Set<FieldErrorType>([
  "FieldValueInvalid",
  "FieldValueNotFound",
  "FieldValueNotSupported",
  "FieldValueDuplicate",
  "FieldValueTypeInvalid",
  "FieldValueTooMany",
]);

/**
 * Bounds on error text. Upstream lists every error, every supported value and whole values; here
 * one request could then make an answer of gigabytes (an enum of thousands of values repeated for
 * each of thousands of bad items), so what an answer holds is capped.
 */
export const ERROR_LIMITS = {
  /** Causes one answer lists; its message says how many more there were. */
  causes: 100,
  /** Characters of the message's list of causes past which no more are listed. */
  listChars: 64 * 1024,
  /** Characters of one field path, value or cause message. */
  textChars: 4096,
  /** Values an "Unsupported value" error lists; the rest are counted. */
  supportedValues: 64,
  /**
   * Errors a schema validation collects before it stops walking the object: a 3 MiB body can
   * hold a million bad items, and finding (and deduplicating) every one held the event loop for
   * seconds, for an answer that lists 100.
   */
  collected: 1000,
} as const;

/** `text` cut to `max` characters (not inside a surrogate pair), with "..." when cut. */
export function clip(text: string, max: number = ERROR_LIMITS.textChars): string {
  if (text.length <= max) return text;
  const c = text.charCodeAt(max - 1);
  return `${text.slice(0, c >= 0xd800 && c <= 0xdbff ? max - 1 : max)}...`;
}

/** JSON text of a value, written only up to about `max` characters (a 3 MB value costs no more). */
function boundedJson(v: unknown, max: number): string {
  let out = "";
  const write = (x: unknown): void => {
    if (out.length > max) return;
    if (typeof x === "string") out += JSON.stringify(x.length > max ? x.slice(0, max) : x);
    else if (Array.isArray(x)) {
      out += "[";
      for (let i = 0; i < x.length && out.length <= max; i++) {
        if (i > 0) out += ",";
        write(x[i] ?? null);
      }
      out += "]";
    } else if (typeof x === "object" && x !== null) {
      out += "{";
      let first = true;
      for (const k in x) {
        const member = (x as Record<string, unknown>)[k];
        if (member === undefined) continue;
        if (out.length > max) break;
        out += `${first ? "" : ","}${JSON.stringify(k.length > max ? k.slice(0, max) : k)}:`;
        first = false;
        write(member);
      }
      out += "}";
    } else out += JSON.stringify(x) ?? "null";
  };
  write(v);
  return clip(out, max);
}

function valueText(v: unknown): string {
  return typeof v === "object" || typeof v === "string" ? boundedJson(v, ERROR_LIMITS.textChars) : String(v);
}

/** `"a", "b", ... (n more)`: at most ERROR_LIMITS.supportedValues values, within textChars. */
function supportedText(values: readonly string[]): string {
  let out = "";
  let i = 0;
  for (; i < values.length && i < ERROR_LIMITS.supportedValues && out.length <= ERROR_LIMITS.textChars; i++)
    out += `${i > 0 ? ", " : ""}${valueText(values[i])}`;
  return i < values.length ? `${out}, ... (${values.length - i} more)` : out;
}

/** The message after `<field>: `, e.g. `Invalid value: "x": must be ...`, within textChars. */
export function fieldErrorBody(e: FieldError): string {
  let text = TYPE_TEXT[e.type];
  if (SHOWS_VALUE.has(e.type) && e.value !== undefined) text += `: ${valueText(e.value)}`;
  if (e.type === "FieldValueNotSupported" && e.supported) {
    text += `: supported values: ${supportedText(e.supported)}`;
  } else if (e.detail) {
    text += `: ${e.detail}`;
  }
  return clip(text);
}

export function formatFieldError(e: FieldError): string {
  return `${clip(e.field)}: ${fieldErrorBody(e)}`;
}

export const field = {
  notFound: (path: string, value: unknown): FieldError => ({
    field: path,
    type: "FieldValueNotFound",
    value,
  }),
  required: (path: string, detail?: string): FieldError => ({
    field: path,
    type: "FieldValueRequired",
    ...(detail ? { detail } : {}),
  }),
  invalid: (path: string, value: unknown, detail: string): FieldError => ({
    field: path,
    type: "FieldValueInvalid",
    value,
    detail,
  }),
  notSupported: (path: string, value: unknown, supported: readonly string[]): FieldError => ({
    field: path,
    type: "FieldValueNotSupported",
    value,
    supported,
  }),
  forbidden: (path: string, detail: string): FieldError => ({
    field: path,
    type: "FieldValueForbidden",
    detail,
  }),
  duplicate: (path: string, value: unknown): FieldError => ({
    field: path,
    type: "FieldValueDuplicate",
    value,
  }),
  tooLong: (path: string, max: number): FieldError => ({
    field: path,
    type: "FieldValueTooLong",
    detail: `must have at most ${max} bytes`,
  }),
};
