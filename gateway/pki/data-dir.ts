// Keeps the data directory private to the user the gateway runs as: it holds the cluster's keys,
// the admin credentials and every Secret (plain base64 in the store), so group and other access is
// removed from it and from everything the gateway keeps there (directories 0700, files 0600), on
// every start, for files an older release or a copy left readable. The data directory itself is
// left as it is when the gateway is not alone there: a mount point (the operator chose its mode,
// say for a backup agent), another user's directory, or one holding files that are not the
// gateway's (`--data-dir=/var/lib` or `/tmp` must not lock other programs out). What the gateway
// keeps inside is private anyway.
import { chmod, lstat, readdir } from "node:fs/promises";
import { dirname, join, relative, resolve } from "node:path";

export const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

/** Something an operator should hear about, for the caller to log. */
export interface Notice {
  readonly level: "info" | "warn";
  readonly msg: string;
  readonly file: string;
  readonly [field: string]: string;
}

const octal = (mode: number) => `0${(mode & 0o777).toString(8)}`;

/**
 * Removes group and other access from `dataDir` and from `entries` (paths inside it, walked
 * without following symbolic links); returns one notice per change and per directory left open.
 */
export async function tightenDataDir(dataDir: string, entries: readonly string[]): Promise<Notice[]> {
  const notices: Notice[] = [];
  const root = await lstat(dataDir);
  const parent = await lstat(dirname(resolve(dataDir)));
  const own = new Set(entries.map((entry) => relative(dataDir, entry)));
  const shared =
    root.dev !== parent.dev ||
    (typeof process.getuid === "function" && root.uid !== process.getuid()) ||
    (await readdir(dataDir)).some((name) => !own.has(name));
  if (!shared) await tighten(dataDir, notices, false);
  else if (root.mode & 0o077) {
    notices.push({
      level: "warn",
      msg: "the data directory is a mount point, another user's or holds other files, so its mode is left as it is; the files the gateway keeps in it are private",
      file: dataDir,
      mode: octal(root.mode),
    });
  }
  for (const entry of entries) await tighten(entry, notices);
  return notices;
}

async function tighten(path: string, notices: Notice[], walk = true): Promise<void> {
  const stat = await lstat(path).catch((err: NodeJS.ErrnoException) => {
    if (err.code === "ENOENT") return undefined;
    throw err;
  });
  if (!stat || stat.isSymbolicLink()) return;
  if (stat.mode & 0o077) {
    const mode = stat.mode & 0o700;
    await chmod(path, mode);
    notices.push({
      level: "info",
      msg: "removed group and other access",
      file: path,
      from: octal(stat.mode),
      to: octal(mode),
    });
  }
  if (walk && stat.isDirectory()) {
    for (const name of await readdir(path)) await tighten(join(path, name), notices);
  }
}
