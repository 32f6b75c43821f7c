// Runs a throwaway redis-server for tests: a free loopback port, a temporary directory, no
// persistence, stopped by PID (and killed when the test process exits).
//
//   import { redisSkipReason, startRedis } from "../../test/support/redis.ts";
//   describe("...", { skip: redisSkipReason() }, () => { ... const redis = await startRedis(); ... });

import { type ChildProcess, spawn } from "node:child_process";
import { accessSync, constants, mkdtempSync, rmSync } from "node:fs";
import { createConnection, createServer } from "node:net";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";

const INSTALL_HINT = "redis-server not found: install redis-server (apt-get install redis-server)";
const START_TIMEOUT_MS = 10_000;

export interface RedisServer {
  /** e.g. `redis://127.0.0.1:41234`. */
  readonly url: string;
  stop(): Promise<void>;
}

export function redisBinary(): string | undefined {
  const candidates = [
    ...(process.env.PATH ?? "").split(delimiter).map((dir) => (dir ? join(dir, "redis-server") : "")),
    "/usr/bin/redis-server",
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

/** For `describe(..., { skip: redisSkipReason() })`: false when installed; throws under REQUIRE_SERVICES=1. */
export function redisSkipReason(): string | false {
  if (redisBinary()) return false;
  if (process.env.REQUIRE_SERVICES === "1")
    throw new Error(`${INSTALL_HINT}; REQUIRE_SERVICES=1 makes this a failure`);
  return INSTALL_HINT;
}

async function freePort(): Promise<number> {
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
process.once("exit", () => {
  for (const child of live) if (child.pid !== undefined) child.kill("SIGKILL");
});

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

export async function startRedis(): Promise<RedisServer> {
  const binary = redisBinary();
  if (!binary) throw new Error(INSTALL_HINT);
  const dir = mkdtempSync(join(tmpdir(), "redis-test-"));
  const port = await freePort();
  const child = spawn(
    binary,
    ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir],
    { stdio: ["ignore", "ignore", "pipe"] },
  );
  live.add(child);
  let stderr = "";
  child.stderr?.setEncoding("utf8");
  child.stderr?.on("data", (c: string) => {
    stderr = (stderr + c).slice(-2000);
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill("SIGTERM");
      await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    }
    live.delete(child);
    rmSync(dir, { recursive: true, force: true });
  };
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (!(await answersPing(port))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      await stop();
      throw new Error(`redis-server did not start: ${stderr}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return { url: `redis://127.0.0.1:${port}`, stop };
}
