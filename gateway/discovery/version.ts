// The `/version` document. The server answers as release 1.27 of the reference API server, so
// `gitVersion` is that release with the product and its version as semantic-version build
// metadata (`v1.27.16+cluster-gateway.0.1.0`): clients that parse it (kubectl's skew check, chart
// tools' version constraints) see 1.27.16, and build metadata does not change precedence the way
// a pre-release suffix would. gitCommit, gitTreeState and buildDate describe the checkout the
// server runs from (read once, on the first call), as upstream's build stamps them.
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { endianness } from "node:os";
import { join, resolve } from "node:path";
import packageJson from "../../package.json" with { type: "json" };

/** The release of the reference API server this server behaves as. */
export const EMULATED_RELEASE = { major: 1, minor: 27, patch: 16 } as const;

export interface VersionInfo {
  readonly major: string;
  readonly minor: string;
  readonly gitVersion: string;
  readonly gitCommit: string;
  readonly gitTreeState: string;
  readonly buildDate: string;
  readonly goVersion: string;
  readonly compiler: string;
  readonly platform: string;
}

export interface BuildInfo {
  /** The product's version; package.json's when absent. */
  readonly productVersion?: string;
  readonly gitCommit?: string;
  /** `clean`, `dirty`, or "" when not built from a git tree. */
  readonly gitTreeState?: string;
  /** RFC 3339, seconds precision, UTC. */
  readonly buildDate?: string;
}

const PRODUCT = "cluster-gateway";

/** Build metadata allows ASCII letters, digits and hyphens in dot-separated identifiers. */
function buildMetadata(text: string): string {
  return text
    .replace(/[^0-9A-Za-z.-]/g, "-")
    .split(".")
    .filter((part) => part !== "")
    .join(".");
}

const goArch: Readonly<Record<string, string>> = { x64: "amd64", ia32: "386" };
const goOs: Readonly<Record<string, string>> = { win32: "windows" };

/** `<os>/<arch>` in Go's names, as clients expect them (`linux/amd64`). */
export function platform(os: string = process.platform, arch: string = process.arch): string {
  const goArchName = arch === "ppc64" && endianness() === "LE" ? "ppc64le" : (goArch[arch] ?? arch);
  return `${goOs[os] ?? os}/${goArchName}`;
}

/** RFC 3339 in UTC to the second, as upstream's build date. */
function rfc3339(date: Date): string {
  return `${date.toISOString().slice(0, 19)}Z`;
}

function git(root: string, args: string[]): string | undefined {
  try {
    return execFileSync("git", ["-C", root, ...args], {
      encoding: "utf8",
      timeout: 10_000,
      stdio: ["ignore", "pipe", "ignore"],
    });
  } catch {
    return undefined;
  }
}

/**
 * The build of the sources under `root`: its git checkout's HEAD commit, whether the tree has
 * changes (upstream counts untracked files too), and the commit's date as buildDate. Sources run
 * as they are, without a build step; outside a checkout buildDate is when this process started.
 */
export function readBuild(root: string): BuildInfo {
  const started = { buildDate: rfc3339(new Date(performance.timeOrigin)) };
  // Only the sources' own checkout, not a repository around them.
  if (!existsSync(join(root, ".git"))) return started;
  const head = git(root, ["log", "-1", "--format=%H %ct"])?.trim().split(" ");
  if (!head || !/^[0-9a-f]{40,64}$/.test(head[0] ?? "") || !/^\d+$/.test(head[1] ?? "")) return started;
  const status = git(root, ["status", "--porcelain"]);
  return {
    gitCommit: head[0],
    // Dirty unless git says otherwise, as upstream's build decides.
    gitTreeState: status === "" ? "clean" : "dirty",
    buildDate: rfc3339(new Date(Number(head[1]) * 1000)),
  };
}

const ROOT = resolve(import.meta.dirname, "../..");
let running: BuildInfo | undefined;

/** This process's build, read once. */
export function runningBuild(): BuildInfo {
  running ??= readBuild(ROOT);
  return running;
}

export function versionInfo(build: BuildInfo = runningBuild()): VersionInfo {
  const { major, minor, patch } = EMULATED_RELEASE;
  const product = buildMetadata(`${PRODUCT}.${build.productVersion ?? packageJson.version}`);
  return {
    major: String(major),
    minor: String(minor),
    gitVersion: `v${major}.${minor}.${patch}+${product}`,
    gitCommit: build.gitCommit ?? "",
    gitTreeState: build.gitTreeState ?? "",
    buildDate: build.buildDate ?? "1970-01-01T00:00:00Z",
    // Fields that name Go's toolchain upstream; this server names its runtime instead.
    goVersion: `node${process.versions.node}`,
    compiler: "v8",
    platform: platform(),
  };
}

/** The body of `/version`: indented by two spaces, no trailing newline, as the reference server writes it. */
export function versionBody(info: VersionInfo): string {
  return JSON.stringify(info, null, 2);
}
