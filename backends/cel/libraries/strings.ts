// String extensions upstream enables that cel-js lacks or implements differently: charAt, replace
// (cel-go's strings extension) and ASCII-only lowerAscii/upperAscii (cel-js lowercases all of
// Unicode; these are registered under internal names the compiler renames calls to).
import type { Environment } from "@marcbachmann/cel-js";
import { CelRuntimeError } from "../errors.ts";

export const LOWER_ASCII = "__k_lowerAscii";
export const UPPER_ASCII = "__k_upperAscii";

/** Go's strings.Replace: at most `n` replacements (all when n < 0); "" matches between code points. */
export function replace(s: string, from: string, to: string, n: number): string {
  if (n === 0 || from === to) return s;
  if (from === "") {
    const points = [...s];
    let out = "";
    let done = 0;
    for (let i = 0; i <= points.length; i++) {
      if (n < 0 || done < n) {
        out += to;
        done++;
      }
      out += points[i] ?? "";
    }
    return out;
  }
  if (n < 0) return s.split(from).join(to);
  let out = "";
  let pos = 0;
  for (let done = 0; done < n; done++) {
    const at = s.indexOf(from, pos);
    if (at < 0) break;
    out += s.slice(pos, at) + to;
    pos = at + from.length;
  }
  return out + s.slice(pos);
}

/** Length of replace(s, from, to, n) without building it, so its cost is charged first. */
export function replacedLength(s: string, from: string, to: string, n: number): number {
  if (n === 0) return s.length;
  let count = 0;
  if (from === "") {
    count = [...s].length + 1;
  } else {
    for (let at = s.indexOf(from); at >= 0; at = s.indexOf(from, at + from.length)) count++;
  }
  if (n > 0) count = Math.min(count, n);
  return s.length + count * (to.length - from.length);
}

function ascii(s: string, upper: boolean): string {
  return s.replace(upper ? /[a-z]+/g : /[A-Z]+/g, (m) => (upper ? m.toUpperCase() : m.toLowerCase()));
}

export function registerStringLibrary(env: Environment): void {
  env.registerFunction("string.charAt(int): string", (s: string, index: bigint) => {
    const points = [...s];
    if (index < 0n || index > BigInt(points.length)) {
      throw new CelRuntimeError("index_out_of_range", `index out of range: ${index}`);
    }
    return points[Number(index)] ?? "";
  });
  env.registerFunction("string.replace(string, string): string", (s: string, from: string, to: string) =>
    replace(s, from, to, -1),
  );
  env.registerFunction(
    "string.replace(string, string, int): string",
    (s: string, from: string, to: string, n: bigint) => replace(s, from, to, n < 0n ? -1 : Number(n)),
  );
  env.registerFunction(`string.${LOWER_ASCII}(): string`, (s: string) => ascii(s, false));
  env.registerFunction(`string.${UPPER_ASCII}(): string`, (s: string) => ascii(s, true));
}
