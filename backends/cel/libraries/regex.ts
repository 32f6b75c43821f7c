// The regex library with RE2 semantics (re2js): `matches` (replacing cel-js's JavaScript RegExp
// version, which backtracks), `find` and `findAll`. Compiled patterns are cached.
import type { Environment } from "@marcbachmann/cel-js";
import { RE2JS } from "re2js";
import { CelRuntimeError } from "../errors.ts";

/** Internal name `matches` is renamed to before type-checking (see environment.ts). */
export const RE2_MATCHES = "__k_matches";

const CACHE_SIZE = 512;
const cache = new Map<string, RE2JS | string>();

/** The compiled pattern, or the RE2 syntax error text (`error parsing regexp: ...`). */
export function compilePattern(pattern: string): RE2JS | string {
  let hit = cache.get(pattern);
  if (hit !== undefined) return hit;
  try {
    hit = RE2JS.compile(pattern);
  } catch (e) {
    hit = e instanceof Error ? e.message : String(e);
  }
  if (cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value as string);
  cache.set(pattern, hit);
  return hit;
}

function compiled(pattern: string): RE2JS {
  const re = compilePattern(pattern);
  if (typeof re === "string") throw new CelRuntimeError("invalid_argument", re);
  return re;
}

/** Go's FindAllString: leftmost matches; an empty match right after the previous match is skipped. */
function findAll(s: string, pattern: string, limit: bigint): string[] {
  const out: string[] = [];
  if (limit === 0n) return out;
  const m = compiled(pattern).matcher(s);
  let pos = 0;
  let prevEnd = -1;
  while (pos <= s.length && (limit < 0n || BigInt(out.length) < limit)) {
    if (!m.find(pos)) break;
    const start = m.start();
    const end = m.end();
    if (end === start) {
      if (start !== prevEnd) out.push("");
      const code = s.codePointAt(end);
      pos = end + (code !== undefined && code > 0xffff ? 2 : 1);
    } else {
      out.push(m.group() ?? "");
      pos = end;
    }
    prevEnd = end;
  }
  return out;
}

export function registerRegexLibrary(env: Environment): void {
  env.registerFunction(`string.${RE2_MATCHES}(string): bool`, (s: string, p: string) => compiled(p).test(s));
  env.registerFunction(`${RE2_MATCHES}(string, string): bool`, (s: string, p: string) => compiled(p).test(s));
  env.registerFunction("string.find(string): string", (s: string, p: string) => {
    const m = compiled(p).matcher(s);
    return m.find() ? (m.group() ?? "") : "";
  });
  env.registerFunction("string.findAll(string): list<string>", (s: string, p: string) => findAll(s, p, -1n));
  env.registerFunction("string.findAll(string, int): list<string>", (s: string, p: string, n: bigint) =>
    findAll(s, p, n),
  );
}
