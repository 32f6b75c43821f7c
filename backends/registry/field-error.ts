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

/** The message after `<field>: `, e.g. `Invalid value: "x": must be ...`. */
export function fieldErrorBody(e: FieldError): string {
  let text = TYPE_TEXT[e.type];
  if (SHOWS_VALUE.has(e.type) && e.value !== undefined) {
    text += `: ${typeof e.value === "object" && e.value !== null ? JSON.stringify(e.value) : typeof e.value === "string" ? JSON.stringify(e.value) : String(e.value)}`;
  }
  if (e.type === "FieldValueNotSupported" && e.supported) {
    text += `: supported values: ${e.supported.map((s) => JSON.stringify(s)).join(", ")}`;
  } else if (e.detail) {
    text += `: ${e.detail}`;
  }
  return text;
}

export function formatFieldError(e: FieldError): string {
  return `${e.field}: ${fieldErrorBody(e)}`;
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
