// What the throwaway service starters (etcd.ts, redis.ts) share: finding a binary, the skip-or-fail
// rule of REQUIRE_SERVICES, free loopback ports, and a last-resort cleanup that kills forgotten
// processes and removes their directories when the test process exits or is told to stop.
import type { ChildProcess } from "node:child_process";
import { accessSync, constants, rmSync } from "node:fs";
import { createServer } from "node:net";
import { delimiter, join } from "node:path";
import type { TestContext } from "node:test";

/**
 * Path of an executable, or undefined: `$<envVar>` when set (and then only that), else `name` on
 * PATH, else `/usr/bin/<name>`.
 */
export function findBinary(name: string, envVar: string): string | undefined {
  const explicit = process.env[envVar];
  const candidates = explicit
    ? [explicit]
    : [
        ...(process.env.PATH ?? "").split(delimiter).map((dir) => (dir ? join(dir, name) : "")),
        `/usr/bin/${name}`,
      ];
  for (const path of candidates) {
    if (!path) continue;
    try {
      accessSync(path, constants.X_OK);
      return path;
    } catch {
      // not this one
    }
  }
  return undefined;
}

function servicesRequired(): boolean {
  return process.env.REQUIRE_SERVICES === "1";
}

/** A suite's `skip` option: false when `installed`, else the hint; throws under REQUIRE_SERVICES=1. */
export function skipReason(installed: boolean, hint: string): string | false {
  if (installed) return false;
  if (servicesRequired()) throw new Error(`${hint}; REQUIRE_SERVICES=1 makes this a failure`);
  return hint;
}

/** For one test: true when `installed`; otherwise skips it (or fails under REQUIRE_SERVICES=1). */
export function skipUnless(t: TestContext, installed: boolean, hint: string): boolean {
  const reason = skipReason(installed, hint);
  if (reason === false) return true;
  t.skip(reason);
  return false;
}

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", resolve);
  });
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === "string") throw new Error("no TCP address");
  return address.port;
}

const live = new Set<ChildProcess>();
const dirs = new Set<string>();

function cleanUpNow(): void {
  for (const child of live) {
    if (child.pid !== undefined) {
      try {
        process.kill(child.pid, "SIGKILL");
      } catch {
        // already gone
      }
    }
  }
  live.clear();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  dirs.clear();
}

process.once("exit", cleanUpNow);
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    cleanUpNow();
    // Re-raised so the process still ends the way it was told to.
    process.kill(process.pid, signal);
  });
}

/** Kills the child at exit if a test forgot it; forgotten once it exits. */
export function trackChild(child: ChildProcess): void {
  live.add(child);
  child.once("exit", () => live.delete(child));
}

/** Removes the directory at exit if a test forgot it. */
export function trackDir(dir: string): void {
  dirs.add(dir);
}

export function untrackDir(dir: string): void {
  dirs.delete(dir);
}
