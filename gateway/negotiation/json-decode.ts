// JSON request bodies: the value, plus the duplicate object keys that `fieldValidation` reports
// (SPEC "Errors", rules 2-3). JSON.parse keeps the last of duplicate keys, as the upstream decoder
// does, but cannot say that there were any; this module can.
//
// Fast path: JSON.parse, then count the `:` separators outside strings in the text (one per key
// occurrence) and the keys of the parsed value (one per distinct key). Equal counts mean no
// duplicates. Only when they differ, or when the text is malformed, does a full scan run; it finds
// the duplicate paths (`metadata.labels.a`, `spec.containers[0].name`), or the first syntax error
// with the upstream decoder's wording.

import { MAX_BODY_DEPTH, nestingLimitText } from "../../backends/registry/index.ts";

/**
 * Nesting of objects and arrays past this is refused. Upstream allows 10,000; our recursive steps
 * do not reach that far (see backends/registry/depth.ts).
 */
const MAX_DEPTH = MAX_BODY_DEPTH;
/** Upstream reports at most this many strict-decoding problems. */
const MAX_REPORTED = 100;

/** Malformed JSON. `message` uses the upstream decoder's wording; the caller turns it into a 400. */
export class JsonSyntaxError extends Error {
  /** Index in the text (UTF-16 code units) of the offending character; the text length at EOF. */
  readonly offset: number;
  /** 1-based line and column of `offset`. */
  readonly line: number;
  readonly column: number;

  constructor(message: string, text: string, offset: number) {
    super(message);
    this.name = "JsonSyntaxError";
    this.offset = offset;
    let line = 1;
    let lineStart = 0;
    for (let i = text.indexOf("\n"); i !== -1 && i < offset; i = text.indexOf("\n", i + 1)) {
      line++;
      lineStart = i + 1;
    }
    this.line = line;
    this.column = offset - lineStart + 1;
  }
}

export interface JsonDecoded {
  readonly value: unknown;
  /** Paths of duplicated keys in document order, each once, at most 100. */
  readonly duplicates: string[];
}

/** Parse a JSON body; throws JsonSyntaxError when malformed. */
export function decodeJson(text: string): JsonDecoded {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    scan(text, false); // throws with upstream wording and position
    throw new JsonSyntaxError("invalid JSON", text, 0); // unreachable unless the two disagree
  }
  if (typeof value !== "object" || value === null) return { value, duplicates: [] };
  const counted = countSeparators(text);
  if (counted.depth > MAX_DEPTH) return { value, duplicates: scan(text, false) };
  if (counted.keys === 0 || counted.keys === countKeys(value)) return { value, duplicates: [] };
  return { value, duplicates: scan(text, true) };
}

/** Upstream's strict-decoding text for a duplicate: `duplicate field "metadata.labels.a"`. */
export function duplicateFieldMessage(path: string): string {
  return `duplicate field ${goQuote(path)}`;
}

// ---------------------------------------------------------------------------------------------
// Fast path

/** Colons outside strings (= key occurrences) and the deepest nesting, in valid JSON. */
function countSeparators(text: string): { keys: number; depth: number } {
  let keys = 0;
  let depth = 0;
  let maxDepth = 0;
  const n = text.length;
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 34) {
      i = endOfValidString(text, i);
      continue;
    }
    if (c === 58) keys++;
    else if (c === 123 || c === 91) {
      if (++depth > maxDepth) maxDepth = depth;
    } else if (c === 125 || c === 93) depth--;
    i++;
  }
  return { keys, depth: maxDepth };
}

/** The index after the closing quote of the valid JSON string opening at `start`. */
function endOfValidString(text: string, start: number): number {
  let end = text.indexOf('"', start + 1);
  // A quote preceded by an odd number of backslashes is escaped.
  while (text.charCodeAt(end - 1) === 92) {
    let b = end - 1;
    while (text.charCodeAt(b - 1) === 92) b--;
    if ((end - b) % 2 === 0) break;
    end = text.indexOf('"', end + 1);
  }
  return end + 1;
}

/** Distinct keys in all objects of a parsed value; iterative, the nesting may be deep. */
function countKeys(root: object): number {
  let total = 0;
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v !== "object" || v === null) continue;
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        const e = v[i];
        if (typeof e === "object" && e !== null) stack.push(e);
      }
      continue;
    }
    const record = v as Record<string, unknown>;
    for (const k in record) {
      total++;
      const e = record[k];
      if (typeof e === "object" && e !== null) stack.push(e);
    }
  }
  return total;
}

// ---------------------------------------------------------------------------------------------
// Full scan: validation with upstream's messages, and duplicate paths

interface Frame {
  readonly isObject: boolean;
  readonly keys: Set<string> | undefined;
  index: number;
}

const MODE_VALUE = 0;
const MODE_KEY = 1;
const MODE_AFTER = 2;

function isWhitespace(c: number): boolean {
  return c === 32 || c === 9 || c === 10 || c === 13;
}

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

function isHex(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102);
}

/**
 * Validate `text` and return duplicate key paths; throws JsonSyntaxError on the first error.
 * `valid`: the text is known to be valid JSON, so strings are skipped without checking them.
 */
function scan(text: string, valid: boolean): string[] {
  const n = text.length;
  const stack: Frame[] = [];
  const path: string[] = []; // one segment per open container that is inside another
  const duplicates: string[] = [];
  const seen = new Set<string>();
  let pos = 0;
  let mode = MODE_VALUE;

  const fail = (context: string, at: number): never => {
    if (at >= n) throw new JsonSyntaxError("unexpected end of JSON input", text, n);
    throw new JsonSyntaxError(`invalid character ${quoteChar(text.codePointAt(at)!)} ${context}`, text, at);
  };
  const skipSpace = () => {
    while (pos < n && isWhitespace(text.charCodeAt(pos))) pos++;
  };
  const push = (isObject: boolean) => {
    if (stack.length >= MAX_DEPTH) fail(`exceeded max depth: ${nestingLimitText(MAX_DEPTH)}`, pos);
    stack.push({ isObject, keys: isObject ? new Set() : undefined, index: 0 });
    pos++;
  };
  /** Scan a string starting at its opening quote; returns the index after the closing quote. */
  const scanString = (): number => {
    if (valid) return endOfValidString(text, pos);
    let i = pos + 1;
    for (;;) {
      if (i >= n) fail("", n);
      const c = text.charCodeAt(i);
      if (c === 34) return i + 1;
      if (c === 92) {
        i++;
        if (i >= n) fail("", n);
        const e = text.charCodeAt(i);
        if (e === 117) {
          for (let k = 1; k <= 4; k++) {
            if (i + k >= n) fail("", n);
            if (!isHex(text.charCodeAt(i + k))) fail("in \\u hexadecimal character escape", i + k);
          }
          i += 5;
          continue;
        }
        // " \ / b f n r t
        if (
          e !== 34 &&
          e !== 92 &&
          e !== 47 &&
          e !== 98 &&
          e !== 102 &&
          e !== 110 &&
          e !== 114 &&
          e !== 116
        ) {
          fail("in string escape code", i);
        }
        i++;
        continue;
      }
      if (c < 0x20) fail("in string literal", i);
      i++;
    }
  };
  const scanNumber = () => {
    let i = pos;
    if (text.charCodeAt(i) === 45) {
      i++;
      if (i >= n) fail("", n);
      if (!isDigit(text.charCodeAt(i))) fail("in numeric literal", i);
    }
    if (text.charCodeAt(i) === 48) i++;
    else while (i < n && isDigit(text.charCodeAt(i))) i++;
    if (i < n && text.charCodeAt(i) === 46) {
      i++;
      if (i >= n) fail("", n);
      if (!isDigit(text.charCodeAt(i))) fail("after decimal point in numeric literal", i);
      while (i < n && isDigit(text.charCodeAt(i))) i++;
    }
    if (i < n && (text.charCodeAt(i) === 101 || text.charCodeAt(i) === 69)) {
      i++;
      if (i < n && (text.charCodeAt(i) === 43 || text.charCodeAt(i) === 45)) i++;
      if (i >= n) fail("", n);
      if (!isDigit(text.charCodeAt(i))) fail("in exponent of numeric literal", i);
      while (i < n && isDigit(text.charCodeAt(i))) i++;
    }
    pos = i;
  };
  const scanLiteral = (word: string) => {
    for (let k = 1; k < word.length; k++) {
      if (pos + k >= n) fail("", n);
      if (text.charCodeAt(pos + k) !== word.charCodeAt(k)) {
        fail(`in literal ${word} (expecting ${quoteChar(word.charCodeAt(k))})`, pos + k);
      }
    }
    pos += word.length;
  };
  const pushSegment = (segment: string) => {
    // The first segment of a path has no leading dot.
    path.push(path.length === 0 && segment.charCodeAt(0) === 46 ? segment.slice(1) : segment);
  };

  for (;;) {
    if (mode === MODE_VALUE) {
      skipSpace();
      if (pos >= n) fail("", n);
      const c = text.charCodeAt(pos);
      if (c === 123) {
        push(true);
        skipSpace();
        if (pos < n && text.charCodeAt(pos) === 125) {
          pos++;
          stack.pop();
          mode = MODE_AFTER;
        } else mode = MODE_KEY;
        continue;
      }
      if (c === 91) {
        push(false);
        skipSpace();
        if (pos < n && text.charCodeAt(pos) === 93) {
          pos++;
          stack.pop();
          mode = MODE_AFTER;
        } else {
          pushSegment("[0]");
          mode = MODE_VALUE;
        }
        continue;
      }
      if (c === 34) pos = scanString();
      else if (c === 45 || isDigit(c)) scanNumber();
      else if (c === 116) scanLiteral("true");
      else if (c === 102) scanLiteral("false");
      else if (c === 110) scanLiteral("null");
      else fail("looking for beginning of value", pos);
      mode = MODE_AFTER;
      continue;
    }

    if (mode === MODE_KEY) {
      skipSpace();
      if (pos >= n) fail("", n);
      if (text.charCodeAt(pos) !== 34) fail("looking for beginning of object key string", pos);
      const start = pos;
      pos = scanString();
      const raw = text.slice(start + 1, pos - 1);
      const key = raw.includes("\\") ? (JSON.parse(text.slice(start, pos)) as string) : raw;
      skipSpace();
      if (pos >= n) fail("", n);
      if (text.charCodeAt(pos) !== 58) fail("after object key", pos);
      pos++;
      const frame = stack[stack.length - 1]!;
      if (frame.keys!.has(key)) {
        const p = path.length === 0 ? key : `${path.join("")}.${key}`;
        if (!seen.has(p) && duplicates.length < MAX_REPORTED) {
          seen.add(p);
          duplicates.push(p);
        }
      } else frame.keys!.add(key);
      pushSegment(`.${key}`);
      mode = MODE_VALUE;
      continue;
    }

    // MODE_AFTER: a value just ended.
    const frame = stack[stack.length - 1];
    if (!frame) {
      skipSpace();
      if (pos < n) fail("after top-level value", pos);
      return duplicates;
    }
    // The segment of the value that just ended, if it was inside this frame.
    skipSpace();
    if (pos >= n) fail("", n);
    const c = text.charCodeAt(pos);
    if (frame.isObject) {
      if (c === 44) {
        path.pop();
        pos++;
        mode = MODE_KEY;
      } else if (c === 125) {
        path.pop();
        pos++;
        stack.pop();
        mode = MODE_AFTER;
      } else fail("after object key:value pair", pos);
    } else if (c === 44) {
      path.pop();
      pos++;
      frame.index++;
      pushSegment(`[${frame.index}]`);
      mode = MODE_VALUE;
    } else if (c === 93) {
      path.pop();
      pos++;
      stack.pop();
      mode = MODE_AFTER;
    } else fail("after array element", pos);
  }
}

// ---------------------------------------------------------------------------------------------
// Go's quoting, for messages that must read as upstream's

const SHORT_ESCAPES: Record<number, string> = {
  7: "\\a",
  8: "\\b",
  9: "\\t",
  10: "\\n",
  11: "\\v",
  12: "\\f",
  13: "\\r",
};

function escapeCode(c: number): string {
  const short = SHORT_ESCAPES[c];
  if (short) return short;
  if (c < 0x20 || c === 0x7f) return `\\x${c.toString(16).padStart(2, "0")}`;
  if (c >= 0x80 && c <= 0x9f) return `\\u00${c.toString(16).padStart(2, "0")}`;
  return String.fromCharCode(c);
}

/**
 * A character as upstream's JSON scanner names it: `'x'`, `'\n'`, `'"'`, `'\''`. The scanner
 * works on bytes, so a non-ASCII character is named by its first UTF-8 byte read as a code point.
 */
function quoteChar(codePoint: number): string {
  if (codePoint === 39) return "'\\''";
  if (codePoint === 34) return `'"'`;
  if (codePoint === 92) return "'\\\\'";
  let byte = codePoint;
  if (codePoint >= 0x80) {
    // A lone surrogate is not encodable; it is named by the replacement character's first byte.
    const first = new TextEncoder().encode(String.fromCodePoint(codePoint))[0];
    byte = first ?? 0xef;
  }
  return `'${escapeCode(byte)}'`;
}

/** Go's strconv.Quote for the text of messages (non-ASCII printable characters kept). */
export function goQuote(s: string): string {
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 34) out += '\\"';
    else if (c === 92) out += "\\\\";
    else if (c < 0x20 || c === 0x7f || (c >= 0x80 && c <= 0x9f)) out += escapeCode(c);
    else out += s[i];
  }
  return `${out}"`;
}
