// Continue tokens: opaque to clients, they carry the revision of the list's snapshot and the
// last key returned, relative to the resource prefix so a token cannot reach outside it.
import { InvalidRequestError } from "./errors.ts";

const VERSION = "c1";

export interface ContinuePosition {
  /** Snapshot revision; `-1` continues at the latest revision (after the original expired). */
  readonly revision: number;
  /** The last key already returned, relative to the prefix. */
  readonly after: string;
}

export function encodeContinue(position: ContinuePosition): string {
  return Buffer.from(JSON.stringify({ v: VERSION, rv: position.revision, after: position.after })).toString(
    "base64url",
  );
}

export function decodeContinue(token: string): ContinuePosition {
  const invalid = (why: string) => new InvalidRequestError(`continue key is not valid: ${why}`);
  if (!/^[A-Za-z0-9_-]+={0,2}$/.test(token)) throw invalid("not base64url");
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(token, "base64url").toString("utf8"));
  } catch {
    throw invalid("malformed token");
  }
  if (typeof parsed !== "object" || parsed === null) throw invalid("malformed token");
  const { v, rv, after } = parsed as Record<string, unknown>;
  if (v !== VERSION) throw invalid("server does not recognize this encoded version");
  if (typeof rv !== "number" || !Number.isSafeInteger(rv) || rv === 0 || rv < -1) {
    throw invalid("incorrect encoded start resourceVersion");
  }
  if (typeof after !== "string" || after.length === 0) throw invalid("encoded start key empty");
  // Keys are relative paths below the prefix; refuse anything that could climb out of it.
  if (after.startsWith("/") || after.split("/").some((part) => part === ".." || part === ".")) {
    throw invalid("encoded start key is not a relative key");
  }
  return { revision: rv, after };
}
