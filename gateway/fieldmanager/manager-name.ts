// Who a write is recorded for: the `fieldManager` query parameter, or else the client's
// User-Agent up to its first slash (`kubectl/v1.27.3 (linux/amd64) ...` → `kubectl`).
import { type FieldError, field } from "../../backends/registry/index.ts";

/** Upstream's limit on a manager name, in bytes. */
export const MAX_MANAGER_LENGTH = 128;

/** Printable: not a control, format, surrogate or unassigned code point, nor a non-space separator. */
const UNPRINTABLE = /[\p{C}\p{Zl}\p{Zp}]|(?! )\p{Zs}/u;

export function managerFromUserAgent(userAgent: string | undefined): string {
  const prefix = (userAgent ?? "").split("/")[0] ?? "";
  let out = "";
  let bytes = 0;
  for (const ch of prefix) {
    if (UNPRINTABLE.test(ch)) continue;
    const size = Buffer.byteLength(ch);
    if (bytes + size > MAX_MANAGER_LENGTH) break;
    out += ch;
    bytes += size;
  }
  return out;
}

export function managerName(fieldManager: string | undefined, userAgent: string | undefined): string {
  return fieldManager ? fieldManager : managerFromUserAgent(userAgent);
}

/** The `fieldManager` parameter's rules; errors are on the field `fieldManager`. */
export function validateFieldManager(fieldManager: string): FieldError[] {
  const errs: FieldError[] = [];
  if (Buffer.byteLength(fieldManager) > MAX_MANAGER_LENGTH) {
    errs.push(field.tooLong("fieldManager", MAX_MANAGER_LENGTH));
  }
  let i = 0;
  for (const ch of fieldManager) {
    if (UNPRINTABLE.test(ch)) {
      const cp = ch.codePointAt(0) ?? 0;
      const code = `U+${cp.toString(16).toUpperCase().padStart(4, "0")}`;
      errs.push(field.invalid("fieldManager", fieldManager, `invalid character ${code} (at position ${i})`));
    }
    i += Buffer.byteLength(ch);
  }
  return errs;
}
