// Runs a throwaway redis-server for tests: a free loopback port, a fresh temporary directory, no
// persistence, stopped by PID and cleaned up even when a test fails or the process exits.
//
//   import { redisSkipReason, startRedis } from "../../test/support/redis.ts";
//   describe("...", { skip: redisSkipReason() }, () => {
//     let redis: RedisServer;
//     before(async () => { redis = await startRedis(); });
//     after(() => redis?.stop());
//     ... connect to redis.url ...
//   });
//
// or per test: `if (!skipUnlessRedis(t)) return;`.

import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createConnection } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestContext } from "node:test";
import {
  findBinary,
  freePort,
  skipReason,
  skipUnless,
  trackChild,
  trackDir,
  untrackDir,
} from "./service-process.ts";

const INSTALL_HINT = "redis-server not found: install redis-server (apt-get install redis-server)";
const START_TIMEOUT_MS = 10_000;
const STOP_TIMEOUT_MS = 5_000;

export interface RedisServer {
  /** e.g. `redis://127.0.0.1:41234`. */
  readonly url: string;
  /** PID of the running redis-server. */
  readonly pid: number;
  /** Stop the process and remove its directory. Safe to call twice. */
  stop(): Promise<void>;
}

/**
 * Path of the redis-server binary, or undefined when there is none: `$REDIS_BIN` when set (and
 * then only that), else `redis-server` on PATH, else `/usr/bin/redis-server`.
 */
export function redisBinary(): string | undefined {
  return findBinary("redis-server", "REDIS_BIN");
}

/**
 * For a test that needs Redis: true when redis-server is installed. Otherwise skips the test with
 * a line saying what to install and returns false, or throws when REQUIRE_SERVICES=1.
 */
export function skipUnlessRedis(t: TestContext): boolean {
  return skipUnless(t, redisBinary() !== undefined, INSTALL_HINT);
}

/**
 * For a whole suite: `describe("...", { skip: redisSkipReason() }, ...)`. False when redis-server
 * is installed, else the install hint; throws when REQUIRE_SERVICES=1 so the file fails.
 */
export function redisSkipReason(): string | false {
  return skipReason(redisBinary() !== undefined, INSTALL_HINT);
}

/** True when something on the port answers PING with PONG. */
function answersPing(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: "127.0.0.1", port });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.once("error", () => done(false));
    socket.once("connect", () => socket.write("PING\r\n"));
    socket.once("data", (d) => done(d.toString().startsWith("+PONG")));
    socket.setTimeout(1000, () => done(false));
  });
}

/** Starts redis-server and waits until it answers. Call `stop()` when done (e.g. in `after`). */
export async function startRedis(): Promise<RedisServer> {
  // A port found free can be taken by another process before redis binds it: pick another.
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce();
    } catch (err) {
      if (attempt >= 3 || !/address already in use/i.test(String(err))) throw err;
    }
  }
}

async function startOnce(): Promise<RedisServer> {
  const binary = redisBinary();
  if (!binary) throw new Error(INSTALL_HINT);
  const dir = mkdtempSync(join(tmpdir(), "redis-test-"));
  trackDir(dir);
  const port = await freePort();
  const child = spawn(
    binary,
    ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  trackChild(child);
  // redis-server logs to stdout; keep the tail for the error when it does not come up.
  let output = "";
  const keep = (chunk: string) => {
    output = (output + chunk).slice(-4000);
  };
  child.once("error", (err) => keep(String(err)));
  child.stdout?.setEncoding("utf8");
  child.stdout?.on("data", keep);
  child.stderr?.setEncoding("utf8");
  child.stderr?.on("data", keep);
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const running = () => child.exitCode === null && child.signalCode === null;
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    if (running()) {
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), STOP_TIMEOUT_MS);
      await exited;
      clearTimeout(timer);
    }
    rmSync(dir, { recursive: true, force: true });
    untrackDir(dir);
  };
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (!(await answersPing(port))) {
    if (!running() || Date.now() > deadline) {
      await stop();
      throw new Error(`redis-server did not start on port ${port}: ${output}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    url: `redis://127.0.0.1:${port}`,
    get pid() {
      return child.pid ?? -1;
    },
    stop,
  };
}
