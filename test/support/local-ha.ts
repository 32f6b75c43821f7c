// Drives deploy/local-ha.sh (three etcd members, three gateways, haproxy on loopback) for tests and
// benchmarks: start in a temporary directory, read what the script wrote, kill members by their
// process group, stop everything afterwards.
import { execFile } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { etcdBinary } from "./etcd.ts";
import { findBinary, skipReason } from "./service-process.ts";

const ROOT = resolve(import.meta.dirname, "../..");
const SCRIPT = join(ROOT, "deploy/local-ha.sh");
const HAPROXY_HINT = "haproxy not found: install haproxy (apt-get install haproxy)";

/** Path of haproxy (`$HAPROXY_BIN`, else on PATH, else /usr/bin or /usr/sbin), or undefined. */
export function haproxyBinary(): string | undefined {
  if (process.env.HAPROXY_BIN) return findBinary("haproxy", "HAPROXY_BIN");
  // Debian installs it in /usr/sbin, which is not on every PATH.
  return (
    findBinary("haproxy", "HAPROXY_BIN") ??
    (existsSync("/usr/sbin/haproxy") ? "/usr/sbin/haproxy" : undefined)
  );
}

/** For a suite: false when etcd and haproxy are installed, else why not; throws under REQUIRE_SERVICES=1. */
export function localHaSkipReason(): string | false {
  const etcd = skipReason(
    etcdBinary() !== undefined,
    "etcd not found: install etcd-server (apt-get install etcd-server)",
  );
  if (etcd !== false) return etcd;
  return skipReason(haproxyBinary() !== undefined, HAPROXY_HINT);
}

export interface LocalHa {
  readonly dir: string;
  /** Through haproxy. */
  readonly kubeconfig: string;
  /** Replica i alone (1-based). */
  replicaKubeconfig(i: number): string;
  /** PID of the process group leader of `gateway-<i>` or `etcd-<i>`. */
  pid(name: string): number;
  /** The ports the script chose (layout.env). */
  readonly layout: Readonly<Record<string, number>>;
  /** Every PID file the script wrote (haproxy, gateways, etcd members), as name -> PID. */
  pids(): Map<string, number>;
  /** SIGKILL the whole process group of `gateway-<i>` or `etcd-<i>`. */
  kill(name: string): void;
  /** The tail of one member's log. */
  log(name: string): string;
  /** `local-ha.sh start` again in the same directory: starts what is not running. */
  start(): Promise<void>;
  stop(): Promise<void>;
}

const run = promisify(execFile);

export async function startLocalHa(gatewayArgs: readonly string[] = []): Promise<LocalHa> {
  const dir = await mkdtemp(join(tmpdir(), "cg-local-ha-"));
  const env = { ...process.env, ...(haproxyBinary() ? { HAPROXY_BIN: haproxyBinary() } : {}) };
  const log = (name: string) => {
    try {
      return readFileSync(join(dir, `${name}.log`), "utf8").slice(-6000);
    } catch {
      return "";
    }
  };
  const stop = async () => {
    // What stop had to say (a member that needed SIGKILL) goes to the test's output.
    await run(SCRIPT, ["stop", dir], { env, timeout: 120_000 }).then(
      ({ stderr }) => {
        if (!stderr) return;
        process.stderr.write(`local-ha stop: ${stderr}`);
        // The last lines of a member that would not stop say what it was waiting for.
        for (const [, name] of stderr.matchAll(/local-ha: (\S+) did not stop/g))
          process.stderr.write(
            `--- ${name}.log ---\n${log(name as string)
              .split("\n")
              .slice(-15)
              .join("\n")}\n`,
          );
      },
      (err) => {
        process.stderr.write(`local-ha stop: ${String(err)}\n`);
      },
    );
    await rm(dir, { recursive: true, force: true });
  };
  const start = async () => {
    try {
      await run(SCRIPT, ["start", dir, ...gatewayArgs], {
        env,
        timeout: 300_000,
        maxBuffer: 16 * 1024 * 1024,
      });
    } catch (err) {
      const e = err as { stdout?: string; stderr?: string };
      throw new Error(`local-ha.sh start failed:\n${e.stdout ?? ""}${e.stderr ?? String(err)}`);
    }
  };
  try {
    await start();
  } catch (err) {
    await stop();
    throw err;
  }
  const layout = Object.fromEntries(
    readFileSync(join(dir, "layout.env"), "utf8")
      .split("\n")
      .filter((l) => l.includes("="))
      .map((l) => {
        const [k, v] = l.split("=");
        return [k as string, Number(v)];
      }),
  );
  const pid = (name: string) => Number(readFileSync(join(dir, `${name}.pid`), "utf8").trim());
  return {
    dir,
    kubeconfig: join(dir, "admin.kubeconfig"),
    replicaKubeconfig: (i) => join(dir, `gateway-${i}.kubeconfig`),
    pid,
    layout,
    pids() {
      return new Map(
        readdirSync(dir)
          .filter((f) => f.endsWith(".pid"))
          .map((f) => [f.slice(0, -4), Number(readFileSync(join(dir, f), "utf8").trim())]),
      );
    },
    kill(name) {
      process.kill(-pid(name), "SIGKILL");
    },
    log,
    start,
    stop,
  };
}

/** The stat fields of PID after its name (state first), or undefined when there is no such process. */
function stat(pid: number): string[] | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, "utf8");
    return text.slice(text.lastIndexOf(")") + 2).split(" ");
  } catch {
    return undefined;
  }
}

/** PID is a live process (a zombie, killed but not yet reaped, is not). */
export function running(pid: number): boolean {
  const fields = stat(pid);
  return fields !== undefined && fields[0] !== "Z";
}

/** When PID started (clock ticks since boot): with the PID, names one process even if PIDs are reused. */
export function startTime(pid: number): string | undefined {
  return running(pid) ? stat(pid)?.[19] : undefined;
}
