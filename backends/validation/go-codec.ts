// Two decoders whose failures clients see verbatim, written to fail where and how upstream's do:
// standard padded base64 (the JSON form of bytes fields such as Secret.data) and a JSON syntax
// check that yields the texts of upstream's JSON reader (used for docker config secrets).

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const DECODE = new Int16Array(256).fill(-1);
for (let i = 0; i < ALPHABET.length; i++) DECODE[ALPHABET.charCodeAt(i)] = i;
const PAD = 0x3d; // '='
const LF = 0x0a;
const CR = 0x0d;

export type Base64Result =
  | { readonly ok: true; readonly bytes: Buffer }
  | { readonly ok: false; readonly error: string };

/**
 * Decodes standard base64 with padding. Line breaks (CR, LF) anywhere are skipped; anything else
 * outside the alphabet, missing or misplaced padding, or data after the padding fails with
 * `illegal base64 data at input byte N` (N counts UTF-8 bytes of the input).
 */
export function decodeBase64(text: string): Base64Result {
  const src = Buffer.from(text, "utf8");
  const out: number[] = [];
  let si = 0;
  while (si < src.length) {
    const r = decodeQuantum(src, si, out);
    if (r.errorAt !== undefined)
      return { ok: false, error: `illegal base64 data at input byte ${r.errorAt}` };
    si = r.si;
  }
  return { ok: true, bytes: Buffer.from(out) };
}

function isLineBreak(b: number | undefined): boolean {
  return b === LF || b === CR;
}

function decodeQuantum(src: Buffer, start: number, out: number[]): { si: number; errorAt?: number } {
  const dbuf = [0, 0, 0, 0];
  let si = start;
  for (let j = 0; j < 4; j++) {
    if (si === src.length) {
      // Input ended inside a quantum: fine only before its first character.
      return j === 0 ? { si } : { si, errorAt: si - j };
    }
    const b = src[si] ?? 0;
    si++;
    const v = DECODE[b] ?? -1;
    if (v >= 0) {
      dbuf[j] = v;
      continue;
    }
    if (isLineBreak(b)) {
      j--;
      continue;
    }
    if (b !== PAD || j < 2) return { si, errorAt: si - 1 };
    if (j === 2) {
      // "==" is expected; the first '=' is consumed.
      while (si < src.length && isLineBreak(src[si])) si++;
      if (si === src.length) return { si, errorAt: src.length };
      if (src[si] !== PAD) return { si, errorAt: si - 1 };
      si++;
    }
    while (si < src.length && isLineBreak(src[si])) si++;
    emit(dbuf, j, out);
    return si < src.length ? { si, errorAt: si } : { si };
  }
  emit(dbuf, 4, out);
  return { si };
}

function emit(dbuf: readonly number[], count: number, out: number[]): void {
  const val = ((dbuf[0] ?? 0) << 18) | ((dbuf[1] ?? 0) << 12) | ((dbuf[2] ?? 0) << 6) | (dbuf[3] ?? 0);
  out.push((val >> 16) & 0xff);
  if (count >= 3) out.push((val >> 8) & 0xff);
  if (count >= 4) out.push(val & 0xff);
}

/**
 * What upstream's JSON reader says when `bytes` is read into a string-keyed map: a syntax error
 * (e.g. `invalid character 'x' looking for beginning of value`, `unexpected end of JSON input`),
 * a type error when the document is not an object or null, or undefined when it reads fine.
 */
export function goJsonMapError(bytes: Uint8Array): string | undefined {
  const syntax = goJsonSyntaxError(bytes);
  if (syntax !== undefined) return syntax;
  let i = 0;
  while (i < bytes.length && isSpace(bytes[i] ?? 0)) i++;
  const c = bytes[i];
  let kind: string | undefined;
  if (c === 0x5b) kind = "array";
  else if (c === 0x22) kind = "string";
  else if (c === 0x74 || c === 0x66) kind = "bool";
  else if (c === 0x2d || (c !== undefined && c >= 0x30 && c <= 0x39)) kind = "number";
  return kind ? `json: cannot unmarshal ${kind} into Go value of type map[string]interface {}` : undefined;
}

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
}

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

function isHex(c: number): boolean {
  return isDigit(c) || (c >= 0x61 && c <= 0x66) || (c >= 0x41 && c <= 0x46);
}

/** How upstream's JSON reader quotes an offending byte in its messages. */
export function quoteChar(c: number): string {
  if (c === 0x27) return "'\\''";
  if (c === 0x22) return "'\"'";
  const named: Record<number, string> = {
    7: "\\a",
    8: "\\b",
    9: "\\t",
    10: "\\n",
    11: "\\v",
    12: "\\f",
    13: "\\r",
  };
  let s: string;
  if (named[c] !== undefined) s = named[c];
  else if (c < 0x20 || c === 0x7f) s = `\\x${c.toString(16).padStart(2, "0")}`;
  else if (c === 0x5c) s = "\\\\";
  else if ((c >= 0x80 && c <= 0xa0) || c === 0xad) s = `\\u${c.toString(16).padStart(4, "0")}`;
  else s = String.fromCharCode(c);
  return `'${s}'`;
}

type Container = "object-key" | "object-value" | "array";

/** A syntax check over the whole document, failing with the first error upstream's reader reports. */
export function goJsonSyntaxError(bytes: Uint8Array): string | undefined {
  const stack: Container[] = [];
  let i = 0;
  const n = bytes.length;
  const invalid = (c: number, context: string) => `invalid character ${quoteChar(c)} ${context}`;
  const eof = "unexpected end of JSON input";
  // Where a number, literal or escape is cut short, upstream's reader feeds one space at the end
  // and reports that space as the offending character.
  const at = (k: number) => (k < n ? (bytes[k] ?? 0) : 0x20);
  const skipSpace = () => {
    while (i < n && isSpace(bytes[i] ?? 0)) i++;
  };

  // Each step reads one value starting at i (spaces skipped), then the text after it.
  for (;;) {
    skipSpace();
    if (i >= n) return eof;
    const c = bytes[i] ?? 0;
    if (c === 0x7b || c === 0x5b) {
      i++;
      skipSpace();
      if (i >= n) return eof;
      const close = c === 0x7b ? 0x7d : 0x5d;
      if (bytes[i] === close) {
        i++;
      } else if (c === 0x7b) {
        if (bytes[i] !== 0x22) return invalid(bytes[i] ?? 0, "looking for beginning of object key string");
        stack.push("object-key");
        const err = readString();
        if (err !== undefined) return err;
        const after = afterValue();
        if (after === "done") return undefined;
        if (after !== "next") return after;
        continue;
      } else {
        stack.push("array");
        continue;
      }
    } else if (c === 0x22) {
      const err = readString();
      if (err !== undefined) return err;
    } else if (c === 0x2d || isDigit(c)) {
      const err = readNumber();
      if (err !== undefined) return err;
    } else if (c === 0x74 || c === 0x66 || c === 0x6e) {
      const word = c === 0x74 ? "true" : c === 0x66 ? "false" : "null";
      for (let k = 1; k < word.length; k++) {
        i++;
        const expected = word.charCodeAt(k);
        if (bytes[i] !== expected) {
          return invalid(at(i), `in literal ${word} (expecting ${quoteChar(expected)})`);
        }
      }
      i++;
    } else {
      return invalid(c, "looking for beginning of value");
    }
    const after = afterValue();
    if (after === "done") return undefined;
    if (after !== "next") return after;
  }

  // After a complete value: close containers, then find where the next value starts.
  function afterValue(): "next" | "done" | string {
    for (;;) {
      skipSpace();
      const top = stack[stack.length - 1];
      if (top === undefined) return i < n ? invalid(bytes[i] ?? 0, "after top-level value") : "done";
      if (i >= n) return eof;
      const c = bytes[i] ?? 0;
      if (top === "object-key") {
        if (c !== 0x3a) return invalid(c, "after object key");
        i++;
        stack[stack.length - 1] = "object-value";
        return "next";
      }
      if (top === "object-value") {
        if (c === 0x2c) {
          i++;
          skipSpace();
          if (i >= n) return eof;
          if (bytes[i] !== 0x22) return invalid(bytes[i] ?? 0, "looking for beginning of object key string");
          stack[stack.length - 1] = "object-key";
          const err = readString();
          if (err !== undefined) return err;
          continue;
        }
        if (c !== 0x7d) return invalid(c, "after object key:value pair");
        i++;
        stack.pop();
        continue;
      }
      if (c === 0x2c) {
        i++;
        return "next";
      }
      if (c !== 0x5d) return invalid(c, "after array element");
      i++;
      stack.pop();
    }
  }

  // i at the opening quote; leaves i after the closing quote.
  function readString(): string | undefined {
    i++;
    for (;;) {
      if (i >= n) return eof;
      const c = bytes[i] ?? 0;
      i++;
      if (c === 0x22) return undefined;
      if (c === 0x5c) {
        const e = at(i);
        i++;
        if (e === 0x75) {
          for (let k = 0; k < 4; k++) {
            const h = at(i);
            if (!isHex(h)) return invalid(h, "in \\u hexadecimal character escape");
            i++;
          }
        } else if (!'bfnrt\\/"'.includes(String.fromCharCode(e))) {
          return invalid(e, "in string escape code");
        }
      } else if (c < 0x20) {
        return invalid(c, "in string literal");
      }
    }
  }

  // i at '-' or a digit; leaves i after the number.
  function readNumber(): string | undefined {
    if (bytes[i] === 0x2d) {
      i++;
      if (!isDigit(at(i))) return invalid(at(i), "in numeric literal");
    }
    if (bytes[i] === 0x30) i++;
    else while (i < n && isDigit(bytes[i] ?? 0)) i++;
    if (i < n && bytes[i] === 0x2e) {
      i++;
      if (!isDigit(at(i))) return invalid(at(i), "after decimal point in numeric literal");
      while (i < n && isDigit(bytes[i] ?? 0)) i++;
    }
    if (i < n && (bytes[i] === 0x65 || bytes[i] === 0x45)) {
      i++;
      if (i < n && (bytes[i] === 0x2b || bytes[i] === 0x2d)) i++;
      if (!isDigit(at(i))) return invalid(at(i), "in exponent of numeric literal");
      while (i < n && isDigit(bytes[i] ?? 0)) i++;
    }
    return undefined;
  }
}
