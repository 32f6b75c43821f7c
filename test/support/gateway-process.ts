// Start the gateway the way README says (`node gateway/main.ts` with flags) on a free loopback
// port in a temporary data directory, and stop it by PID afterwards.
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync, readdirSync, readFileSync, realpathSync } from "node:fs";
import { mkdtemp } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { basename, dirname, join, resolve } from "node:path";
import { promisify } from "node:util";
import { Agent, request } from "undici";
import { skipReason } from "./service-process.ts";

const ROOT = resolve(import.meta.dirname, "../..");

export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as { port: number };
  server.close();
  await once(server, "close");
  return port;
}

export interface GatewayProcess {
  readonly port: number;
  readonly dataDir: string;
  readonly kubeconfig: string;
  readonly child: ChildProcess;
  output(): string;
  /** SIGTERM and wait; resolves with the exit code. */
  stop(): Promise<number | null>;
}

export async function startGateway(
  args: string[] = [],
  reuse?: { dataDir: string; port: number },
  /** `waitReady: false` returns once it serves, before /readyz passes (controllers still starting). */
  how: { waitReady?: boolean } = {},
): Promise<GatewayProcess> {
  const dir = reuse?.dataDir ?? (await mkdtemp(join(tmpdir(), "cg-gateway-")));
  const port = reuse?.port ?? (await freePort());
  const child = spawn(
    process.execPath,
    // JSON log lines, which tests read; a test's own --logging-format comes later and wins.
    [
      join(ROOT, "gateway/main.ts"),
      `--data-dir=${dir}`,
      `--secure-port=${port}`,
      "--logging-format=json",
      ...args,
    ],
    { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] },
  );
  let out = "";
  child.stdout?.on("data", (d) => {
    out += d;
  });
  child.stderr?.on("data", (d) => {
    out += d;
  });
  const deadline = Date.now() + 20_000;
  while (!/"msg":"serving|\] "serving/.test(out)) {
    if (child.exitCode !== null) throw new Error(`gateway exited with ${child.exitCode}:\n${out}`);
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`gateway did not start:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  // The CA comes from --pki-dir when a test shares one between replicas.
  const pkiDir =
    args.findLast((a) => a.startsWith("--pki-dir="))?.slice("--pki-dir=".length) ?? join(dir, "pki");
  if (how.waitReady !== false)
    await waitReady(
      pkiDir,
      port,
      () => child.exitCode !== null,
      () => out,
    );
  return {
    port,
    dataDir: dir,
    kubeconfig: join(dir, "admin.kubeconfig"),
    child,
    output: () => out,
    async stop() {
      // Killed by a signal, a child has no exit code, and its exit event has passed.
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
      const [code] = await once(child, "exit");
      clearTimeout(timer);
      return code as number | null;
    },
  };
}

/** Poll /readyz (trusting the generated CA) until it answers 200, as a deployment's probe would. */
async function waitReady(
  pkiDir: string,
  port: number,
  exited: () => boolean,
  output: () => string,
): Promise<void> {
  const agent = new Agent({ connect: { ca: readFileSync(join(pkiDir, "ca.crt"), "utf8") } });
  const deadline = Date.now() + 20_000;
  try {
    for (;;) {
      if (exited()) throw new Error(`gateway exited:\n${output()}`);
      try {
        const res = await request(`https://127.0.0.1:${port}/readyz`, { dispatcher: agent });
        await res.body.text();
        if (res.statusCode === 200) return;
      } catch {}
      if (Date.now() > deadline) throw new Error(`gateway never became ready:\n${output()}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  } finally {
    await agent.close();
  }
}

/** The kubectl releases README says the gateway is tested with (.ci/run checks the same list). */
const TESTED_KUBECTL = ["kubectl.1.27", "kubectl.1.33"];

/** What a kubectl suite says when it skips. */
export const NO_KUBECTL = "no kubectl.1.NN binaries beside kubectl on PATH";

function kubectlBinaries(): string[] {
  for (const dir of (process.env.PATH ?? "").split(":")) {
    const candidate = join(dir, "kubectl");
    if (!existsSync(candidate)) continue;
    const binDir = dirname(realpathSync(candidate));
    return readdirSync(binDir)
      .filter((n) => /^kubectl\.1\.\d+$/.test(n))
      .sort((a, b) => Number(a.split(".")[2]) - Number(b.split(".")[2]))
      .map((n) => join(binDir, n));
  }
  return [];
}

/**
 * The kubectl binaries beside the real one (kubectl.1.27 ... kubectl.1.33), oldest first. Under
 * REQUIRE_SERVICES=1 a missing tested release throws, so CI fails instead of the suites skipping.
 */
export function kubectlVersions(): string[] {
  const found = kubectlBinaries();
  const missing = TESTED_KUBECTL.filter((name) => !found.some((path) => basename(path) === name));
  skipReason(missing.length === 0, `${missing.join(", ")} not found beside kubectl on PATH`);
  return found;
}

/** The oldest and the newest kubectl (one when they are the same, none without kubectl). */
export function oldestAndNewestKubectl(): string[] {
  const all = kubectlVersions();
  return [...new Set([all[0], all.at(-1)])].filter((b): b is string => b !== undefined);
}

// /metrics alone is over a megabyte once a few kinds have been served (upstream's is too): more
// than execFile's default buffer, which kills kubectl mid-answer.
const KUBECTL_OUTPUT_BYTES = 64 * 1024 * 1024;

// kubectl keeps discovery on disk by host and port for hours: a gateway that gets a port an
// earlier one used (another naming preset, other groups) would be read through the old one's
// discovery. Each kubeconfig gets a cache of its own beside it.
function kubectlCacheDir(kubeconfig: string): string {
  return join(dirname(kubeconfig), ".kubectl-cache");
}

export async function kubectl(
  binary: string,
  kubeconfig: string,
  args: string[],
): Promise<{ stdout: string; code: number }> {
  try {
    const { stdout } = await promisify(execFile)(
      binary,
      [`--kubeconfig=${kubeconfig}`, `--cache-dir=${kubectlCacheDir(kubeconfig)}`, ...args],
      {
        timeout: 30_000,
        maxBuffer: KUBECTL_OUTPUT_BYTES,
      },
    );
    return { stdout, code: 0 };
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string; code?: number };
    return { stdout: `${e.stdout ?? ""}${e.stderr ?? ""}`, code: typeof e.code === "number" ? e.code : 1 };
  }
}

export interface KubectlRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs kubectl with stdin `input`, keeping stdout and stderr (warnings) apart, success or not. */
export async function kubectlRun(
  binary: string,
  kubeconfig: string,
  args: string[],
  input?: string,
): Promise<KubectlRun> {
  const child = promisify(execFile)(
    binary,
    [`--kubeconfig=${kubeconfig}`, `--cache-dir=${kubectlCacheDir(kubeconfig)}`, ...args],
    {
      timeout: 30_000,
      maxBuffer: KUBECTL_OUTPUT_BYTES,
    },
  );
  if (input !== undefined) child.child.stdin?.end(input);
  try {
    const { stdout, stderr } = await child;
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string; code?: number };
    return { code: typeof e.code === "number" ? e.code : 1, stdout: e.stdout ?? "", stderr: e.stderr ?? "" };
  }
}
