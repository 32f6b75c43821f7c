// Runs a throwaway etcd server for tests and benchmarks: free loopback ports, a fresh temporary
// data directory, stopped by PID and cleaned up even when a test fails or the process exits.
//
//   import { skipUnlessEtcd, startEtcd } from "../../test/support/etcd.ts";
//   test("...", async (t) => {
//     if (!skipUnlessEtcd(t)) return;
//     const etcd = await startEtcd();
//     t.after(() => etcd.stop());
//     ... connect to etcd.endpoint ...
//   });

import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
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

const INSTALL_HINT = "etcd not found: install etcd-server (apt-get install etcd-server)";
const START_TIMEOUT_MS = 20_000;
const STOP_TIMEOUT_MS = 10_000;

export interface EtcdServer {
  /** Client URL, e.g. `http://127.0.0.1:41234`. */
  readonly endpoint: string;
  /** PID of the running etcd process (changes on restart). */
  readonly pid: number;
  /** Stop the process and remove its data directory. Safe to call twice. */
  stop(): Promise<void>;
  /**
   * Stop etcd and start it again on the same ports and data directory. `signal` picks a clean
   * stop (SIGTERM, the default) or a crash (SIGKILL); `whileDown` runs while no server answers.
   */
  restart(options?: { signal?: "SIGTERM" | "SIGKILL"; whileDown?: () => Promise<void> }): Promise<void>;
}

export interface StartEtcdOptions {
  /** Extra command-line flags, e.g. `["--unsafe-no-fsync"]` for benchmarks that do not measure disks. */
  readonly args?: readonly string[];
  /**
   * Serve clients over TLS (the endpoint becomes https) with this certificate and key; with
   * `caFile`, clients must present a certificate signed by that CA.
   */
  readonly tls?: { readonly certFile: string; readonly keyFile: string; readonly caFile?: string };
}

/**
 * Path of the etcd binary, or undefined when there is none: `$ETCD_BIN` when set (and then only
 * that), else `etcd` on PATH, else `/usr/bin/etcd`.
 */
export function etcdBinary(): string | undefined {
  return findBinary("etcd", "ETCD_BIN");
}

/**
 * For a test that needs etcd: true when etcd is installed. Otherwise skips the test with a line
 * saying what to install and returns false, or throws (failing the test) when REQUIRE_SERVICES=1.
 */
export function skipUnlessEtcd(t: TestContext): boolean {
  return skipUnless(t, etcdBinary() !== undefined, INSTALL_HINT);
}

/**
 * For a whole suite: `describe("...", { skip: etcdSkipReason() }, ...)`. False when etcd is
 * installed, else the install hint; throws when REQUIRE_SERVICES=1 so the file fails.
 */
export function etcdSkipReason(): string | false {
  return skipReason(etcdBinary() !== undefined, INSTALL_HINT);
}

/** Starts etcd and waits until it is healthy. Call `stop()` when done (e.g. in `t.after`). */
export async function startEtcd(options: StartEtcdOptions = {}): Promise<EtcdServer> {
  // A port found free can be taken by another process before etcd binds it: pick new ones.
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(options);
    } catch (err) {
      if (attempt >= 3 || !String(err).includes("address already in use")) throw err;
    }
  }
}

async function startOnce(options: StartEtcdOptions): Promise<EtcdServer> {
  const binary = etcdBinary();
  if (!binary) throw new Error(INSTALL_HINT);
  const dir = mkdtempSync(join(tmpdir(), "etcd-test-"));
  trackDir(dir);
  const clientPort = await freePort();
  const peerPort = await freePort();
  const metricsPort = await freePort();
  const tls = options.tls;
  const endpoint = `${tls ? "https" : "http"}://127.0.0.1:${clientPort}`;
  const peer = `http://127.0.0.1:${peerPort}`;
  // Plain-HTTP /health whatever the client listener speaks, so readiness needs no certificates.
  const health = `http://127.0.0.1:${metricsPort}/health`;
  const args = [
    "--name=test",
    `--data-dir=${join(dir, "data")}`,
    `--listen-client-urls=${endpoint}`,
    `--advertise-client-urls=${endpoint}`,
    `--listen-peer-urls=${peer}`,
    `--initial-advertise-peer-urls=${peer}`,
    `--initial-cluster=test=${peer}`,
    "--initial-cluster-state=new",
    `--listen-metrics-urls=http://127.0.0.1:${metricsPort}`,
    ...(tls ? [`--cert-file=${tls.certFile}`, `--key-file=${tls.keyFile}`] : []),
    ...(tls?.caFile ? [`--trusted-ca-file=${tls.caFile}`, "--client-cert-auth"] : []),
    "--logger=zap",
    "--log-level=error",
    ...(options.args ?? []),
  ];

  let child: ChildProcess | undefined;
  let stopped = false;

  async function launch(): Promise<void> {
    const proc = spawn(binary as string, args, { stdio: ["ignore", "ignore", "pipe"] });
    trackChild(proc);
    let stderr = "";
    proc.once("error", (err) => {
      stderr += String(err);
    });
    proc.stderr?.setEncoding("utf8");
    proc.stderr?.on("data", (chunk: string) => {
      stderr = (stderr + chunk).slice(-4000);
    });
    const exited = new Promise<void>((resolve) => proc.once("exit", () => resolve()));
    child = proc;
    const deadline = Date.now() + START_TIMEOUT_MS;
    for (;;) {
      if (proc.exitCode !== null || proc.signalCode !== null) {
        throw new Error(`etcd exited during start (${proc.exitCode ?? proc.signalCode}): ${stderr}`);
      }
      try {
        const res = await fetch(health, { signal: AbortSignal.timeout(1000) });
        const body = (await res.json()) as { health?: string };
        if (body.health === "true") return;
      } catch {
        // not up yet
      }
      if (Date.now() > deadline) {
        proc.kill("SIGKILL");
        await exited;
        throw new Error(`etcd did not become healthy within ${START_TIMEOUT_MS} ms: ${stderr}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  async function halt(signal: "SIGTERM" | "SIGKILL"): Promise<void> {
    const proc = child;
    child = undefined;
    if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => proc.once("exit", () => resolve()));
    proc.kill(signal);
    const timer = setTimeout(() => proc.kill("SIGKILL"), STOP_TIMEOUT_MS);
    await exited;
    clearTimeout(timer);
  }

  try {
    await launch();
  } catch (err) {
    await halt("SIGKILL");
    rmSync(dir, { recursive: true, force: true });
    untrackDir(dir);
    throw err;
  }

  return {
    endpoint,
    get pid() {
      return child?.pid ?? -1;
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      await halt("SIGTERM");
      rmSync(dir, { recursive: true, force: true });
      untrackDir(dir);
    },
    async restart(opts = {}) {
      if (stopped) throw new Error("etcd was stopped for good");
      await halt(opts.signal ?? "SIGTERM");
      await opts.whileDown?.();
      await launch();
    },
  };
}
