// The report machinery storage.ts and http.ts share: option parsing (`--quick`, `--only=<ids>`), the rows
// of the results table and its printing, the summary lines, progress on stderr, the formatting of medians
// and ranges, a 4 KB append + fdatasync loop, child-process clean-up and the main() runner.

import type { ChildProcess } from "node:child_process";
import { closeSync, fdatasyncSync, openSync, writeSync } from "node:fs";
import { median } from "./fixtures.ts";

export const now = (): number => performance.now();

// ---- options ---------------------------------------------------------------------------------

export interface Options<Id extends string> {
  readonly quick: boolean;
  readonly only: Set<Id> | undefined;
}

/**
 * Parse `--quick`, `--only=<ids>` and `--help`; `extra` may claim further arguments (returning true).
 * Throws on unknown arguments and scenario ids, with `usage`.
 */
export function parseOptions<Id extends string>(
  argv: string[],
  scenarios: readonly Id[],
  usage: string,
  extra?: (arg: string) => boolean,
): Options<Id> {
  let quick = false;
  let only: Set<Id> | undefined;
  for (const arg of argv) {
    if (arg === "--quick") quick = true;
    else if (arg.startsWith("--only=")) {
      only = new Set();
      for (const raw of arg.slice("--only=".length).split(",")) {
        const id = raw.trim().toUpperCase();
        if (id === "") continue;
        if (!(scenarios as readonly string[]).includes(id))
          throw new Error(`unknown scenario ${raw}\n${usage}`);
        only.add(id as Id);
      }
    } else if (extra?.(arg)) continue;
    else if (arg === "--help" || arg === "-h") {
      console.log(usage);
      process.exit(0);
    } else throw new Error(`unknown argument ${arg}\n${usage}`);
  }
  return { quick, only };
}

/** parseOptions on this process's arguments; on error prints the message and exits with 2. */
export function readOptions<Id extends string>(
  scenarios: readonly Id[],
  usage: string,
  extra?: (arg: string) => boolean,
): Options<Id> {
  try {
    return parseOptions(process.argv.slice(2), scenarios, usage, extra);
  } catch (err) {
    process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(2);
  }
}

/** Whether scenario `id` runs under `options` (every scenario without `--only`). */
export function selector<Id extends string>(options: Options<Id>): (id: Id) => boolean {
  return (id) => options.only === undefined || options.only.has(id);
}

// ---- the table --------------------------------------------------------------------------------

export type Verdict = "ok" | "MISS" | "info" | "skipped" | "error";

export interface Row {
  readonly id: string;
  readonly figure: string;
  readonly subject: string;
  readonly baseline: string;
  readonly ratio: string;
  /** Server CPU time per request, subject / baseline, and baseline/subject as a ratio (http.ts). */
  readonly cpu?: string;
  readonly target: string;
  readonly verdict: Verdict;
}

type Cells = Record<keyof Row, string>;

export const rows: Row[] = [];
export const notes: string[] = [];

export function add(row: Row): void {
  rows.push(row);
  progress(`  ${row.id} ${row.figure}: ${row.subject} | ${row.baseline} | ${row.ratio} | ${row.verdict}`);
}

export function progress(msg: string): void {
  process.stderr.write(`${msg}\n`);
}

export function verdict(ok: boolean): Verdict {
  return ok ? "ok" : "MISS";
}

/**
 * Run one section of scenarios `ids` (skipped when none is selected); an error becomes an "error" row
 * and its stack goes to stderr.
 */
export async function section<Id extends string>(
  selected: (id: Id) => boolean,
  ids: Id[],
  what: string,
  fn: () => Promise<void>,
): Promise<void> {
  if (!ids.some(selected)) return;
  try {
    await fn();
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    progress(`${what} failed: ${err instanceof Error ? (err.stack ?? message) : message}`);
    add({
      id: ids.filter(selected).join("/"),
      figure: what,
      subject: `error: ${message.split("\n")[0]}`,
      baseline: "-",
      ratio: "-",
      target: "-",
      verdict: "error",
    });
  }
}

export interface TableOptions {
  /** Sort the rows by scenario number (BENCHMARKS.md's order), keeping their order within one. */
  readonly byScenario?: boolean;
  /** Add the `cpu` column last, with this header. */
  readonly cpuHeader?: string;
}

export function printTable(options: TableOptions = {}): void {
  const header: Cells = {
    id: "#",
    figure: "figure",
    subject: "subject",
    baseline: "same-run baseline",
    ratio: "ratio: median (range)",
    cpu: options.cpuHeader ?? "",
    target: "target",
    verdict: "verdict",
  };
  const cols: (keyof Row)[] = ["id", "figure", "subject", "baseline", "ratio", "target", "verdict"];
  if (options.cpuHeader !== undefined) cols.push("cpu");
  const order = (r: Row) => Number(/S(\d+)/.exec(r.id)?.[1] ?? 99);
  const sorted = options.byScenario
    ? rows
        .map((r, i) => [r, i] as const)
        .sort((a, b) => order(a[0]) - order(b[0]) || a[1] - b[1])
        .map(([r]) => r)
    : rows;
  const cells: Cells[] = sorted.map((r) => ({ ...r, cpu: r.cpu ?? "-" }));
  const widths = cols.map((c) => Math.max(...[header, ...cells].map((r) => r[c].length)));
  const line = (r: Cells) => `| ${cols.map((c, i) => r[c].padEnd(widths[i] as number)).join(" | ")} |`;
  console.log(line(header));
  console.log(`|${widths.map((w) => "-".repeat(w + 2)).join("|")}|`);
  for (const r of cells) console.log(line(r));
}

/** The notes, the `summary:` line (counting "skipped" rows when `skipped`) and every MISS or error row. */
export function printSummary(started: number, options: { skipped: boolean }): void {
  for (const note of notes) console.log(`note: ${note}`);
  const count = (v: Verdict) => rows.filter((r) => r.verdict === v).length;
  console.log(
    `summary: ${count("ok")} targets met, ${count("MISS")} missed, ${count("error")} errors, ` +
      `${options.skipped ? `${count("skipped")} skipped, ` : ""}${count("info")} reference figures; ` +
      `${((now() - started) / 1000).toFixed(0)} s`,
  );
  for (const r of rows.filter((x) => x.verdict === "MISS" || x.verdict === "error"))
    console.log(
      `  ${r.verdict}: ${r.id} ${r.figure}: ${r.ratio !== "-" ? r.ratio : r.subject} (target ${r.target})`,
    );
}

// ---- formatting ---------------------------------------------------------------------------------

export function fmtRate(perSec: number): string {
  if (!Number.isFinite(perSec)) return "n/a";
  if (perSec >= 10_000) return `${(perSec / 1000).toFixed(1)}k/s`;
  return `${Math.round(perSec).toLocaleString("en-US")}/s`;
}

export function fmtMs(ms: number): string {
  if (!Number.isFinite(ms)) return "n/a";
  if (ms < 0.1) return `${(ms * 1000).toFixed(1)} µs`;
  if (ms < 10) return `${ms.toFixed(2)} ms`;
  if (ms < 1000) return `${ms.toFixed(1)} ms`;
  return `${(ms / 1000).toFixed(2)} s`;
}

/** "1.23x (1.10-1.40)": the median of the finite `values` and their range. */
export function fmtRatio(values: number[], digits = 2): string {
  const finite = values.filter(Number.isFinite);
  if (finite.length === 0) return "n/a";
  const m = median(finite).toFixed(digits);
  if (finite.length === 1) return `${m}x`;
  return `${m}x (${Math.min(...finite).toFixed(digits)}-${Math.max(...finite).toFixed(digits)})`;
}

/** "median (v1 / v2 / ...)"; with `single`, one value is shown alone. */
export function fmtList(values: number[], fmt: (v: number) => string, single = false): string {
  if (single && values.length === 1) return fmt(values[0] as number);
  return `${fmt(median(values))} (${values.map(fmt).join(" / ")})`;
}

// ---- shared machinery ---------------------------------------------------------------------------

/** Append 4 KB to a new file at `path` and fdatasync it, in a loop for `durationMs`: each latency in ms. */
export function fdatasyncTimes(path: string, durationMs: number): number[] {
  const fd = openSync(path, "w");
  const block = Buffer.alloc(4096, 0x61);
  const times: number[] = [];
  try {
    const end = now() + durationMs;
    while (now() < end) {
      const t = process.hrtime.bigint();
      writeSync(fd, block);
      fdatasyncSync(fd);
      times.push(Number(process.hrtime.bigint() - t) / 1e6);
    }
  } finally {
    closeSync(fd);
  }
  return times;
}

/** Child processes to kill when this process exits. */
export const children = new Set<ChildProcess>();
process.once("exit", () => {
  for (const child of children) if (child.pid !== undefined) killQuietly(child.pid);
});

export function killQuietly(pid: number): void {
  try {
    process.kill(pid, "SIGKILL");
  } catch {
    // already gone
  }
}

/** Run `main`, then exit with 0, or with 1 after printing its error. */
export function runMain(main: () => Promise<void>): void {
  main().then(
    () => process.exit(0),
    (err: unknown) => {
      process.stderr.write(
        `bench failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
      );
      process.exit(1);
    },
  );
}

/** Wait for `child` to exit, killing it after `timeoutMs`; its exit code or signal. */
export function waitExit(child: ChildProcess, timeoutMs: number): Promise<number | string> {
  return new Promise((resolvePromise) => {
    if (child.exitCode !== null || child.signalCode !== null) {
      resolvePromise(child.exitCode ?? child.signalCode ?? "unknown");
      return;
    }
    const timer = setTimeout(() => {
      if (child.pid !== undefined) killQuietly(child.pid);
    }, timeoutMs);
    child.once("exit", (code, signal) => {
      clearTimeout(timer);
      resolvePromise(code ?? signal ?? "unknown");
    });
    child.once("error", (err) => {
      clearTimeout(timer);
      resolvePromise(err.message);
    });
  });
}

/** Everything a child writes to stdout and stderr, as one text read when asked. */
export function collectOutput(child: ChildProcess): () => string {
  let out = "";
  child.stdout?.setEncoding("utf8");
  child.stderr?.setEncoding("utf8");
  child.stdout?.on("data", (d: string) => {
    out += d;
  });
  child.stderr?.on("data", (d: string) => {
    out += d;
  });
  return () => out;
}

/**
 * The payload of the one `RESULT <payload>` line a child prints (wrk with a bench script), once it
 * has exited; its whole output in the error when it fails. Killed if still running after `timeoutMs`.
 */
export async function childResult(child: ChildProcess, label: string, timeoutMs: number): Promise<string> {
  children.add(child);
  const output = collectOutput(child);
  const code = await waitExit(child, timeoutMs);
  children.delete(child);
  const out = output();
  const line = out.split("\n").find((l) => l.startsWith("RESULT "));
  if (code !== 0 || line === undefined)
    throw new Error(`${label} (pid ${child.pid}) ended with ${code}:\n${out}`);
  return line.slice("RESULT ".length);
}
