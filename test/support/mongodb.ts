// Runs a throwaway jongodb server (a MongoDB-wire server from npm, in memory) for tests and
// benchmarks on a free loopback port, as a single-node replica set unless asked otherwise, and
// stops it by PID. jongodb has no change streams; `realReplicaSet()` names a real server
// (MONGODB_URI) for the cases that need one.

import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { freePort, skipReason, trackChild } from "./service-process.ts";

const PACKAGE = "@jongodb/memory-server-bin-linux-x64-gnu";
const INSTALL_HINT = `jongodb not found: npm ci installs it (devDependency ${PACKAGE}, linux x64 glibc)`;
const START_TIMEOUT_MS = 20_000;

export interface MongoServer {
  /** A connection string for the driver (with `replicaSet=` in the replica-set profile). */
  readonly uri: string;
  readonly port: number;
  readonly pid: number;
  /**
   * Freeze the server (SIGSTOP) until `resume()`: its connections stay open but nothing answers,
   * as behind a network partition. jongodb keeps its data in memory, so it is not restarted.
   */
  pause(): void;
  resume(): void;
  /** Stop the process (its data goes with it: jongodb keeps everything in memory). */
  stop(): Promise<void>;
}

/** The jongodb binary from its npm package, or undefined where the package is not installed. */
export function jongodbBinary(): string | undefined {
  if (process.env.JONGODB_BIN)
    return existsSync(process.env.JONGODB_BIN) ? process.env.JONGODB_BIN : undefined;
  try {
    const require = createRequire(import.meta.url);
    const manifest = require.resolve(`${PACKAGE}/package.json`);
    const { jongodb } = require(manifest) as { jongodb?: { binary?: string } };
    const binary = join(dirname(manifest), jongodb?.binary ?? "bin/jongodb");
    return existsSync(binary) ? binary : undefined;
  } catch {
    return undefined;
  }
}

/** For a suite: false when jongodb is installed, else the hint; throws under REQUIRE_SERVICES=1. */
export function jongodbSkipReason(): string | false {
  return skipReason(jongodbBinary() !== undefined, INSTALL_HINT);
}

/** MONGODB_URI when it names a server, for the suite that needs a real replica set. */
export function realReplicaSet(): string | undefined {
  const uri = process.env.MONGODB_URI?.trim();
  return uri ? uri : undefined;
}

/**
 * Starts jongodb and waits for the line with its URI. `replicaSet: false` starts its standalone
 * profile (no `setName` in hello), which the backend must refuse.
 */
export async function startJongodb(options: { replicaSet?: boolean } = {}): Promise<MongoServer> {
  const binary = jongodbBinary();
  if (!binary) throw new Error(INSTALL_HINT);
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(binary, options.replicaSet ?? true, await freePort());
    } catch (err) {
      if (attempt >= 3 || !/address already in use|BindException/i.test(String(err))) throw err;
    }
  }
}

async function startOnce(binary: string, replicaSet: boolean, port: number): Promise<MongoServer> {
  const args = ["--host=127.0.0.1", `--port=${port}`];
  if (replicaSet) args.push("--topology-profile=singleNodeReplicaSet");
  const child: ChildProcess = spawn(binary, args, { stdio: ["ignore", "pipe", "pipe"] });
  trackChild(child);
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  let output = "";
  const uri = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`jongodb printed no URI within ${START_TIMEOUT_MS} ms: ${output}`)),
      START_TIMEOUT_MS,
    );
    const onData = (chunk: Buffer) => {
      output = (output + chunk.toString("utf8")).slice(-4000);
      const m = /JONGODB_URI=(\S+)/.exec(output);
      if (m?.[1]) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onData);
    child.once("exit", (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`jongodb exited during start (${code ?? signal}): ${output}`));
    });
  });
  let stopped = false;
  return {
    // jongodb does not stream hello replies (the driver's default server monitoring on a
    // long-lived process): the driver then clears its pool. Polling monitors work with it.
    uri: `${uri}${uri.includes("?") ? "&" : "?"}serverMonitoringMode=poll`,
    port,
    pid: child.pid ?? -1,
    pause() {
      child.kill("SIGSTOP");
    },
    resume() {
      child.kill("SIGCONT");
    },
    async stop() {
      child.kill("SIGCONT");
      if (stopped) return;
      stopped = true;
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
