// Static bearer tokens from `--token-auth-file`: CSV records `token,user,uid[,"group1,group2"]`.
// As upstream: at least three columns (else the file is refused), the fourth column is a
// comma-separated group list and later columns are ignored, blank lines are skipped, there is no
// comment syntax, a record with an empty token is skipped with a warning and a repeated token
// takes the later record with a warning. Unlike upstream, the file is re-read when it changes
// (upstream needs a restart); a changed file that does not parse leaves the previous table in
// force, so a half-written edit never locks everybody out.
import { createHash, timingSafeEqual } from "node:crypto";
import { readFile, stat } from "node:fs/promises";
import type { UserInfo } from "../../../gateway/pipeline/index.ts";
import type { TokenAuthenticator } from "../authenticator.ts";
import { CsvError, parseCsv } from "./csv.ts";

export interface TokenFileLog {
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

export class TokenFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "TokenFileError";
  }
}

interface Entry {
  readonly digest: Buffer;
  readonly user: UserInfo;
}

/** The parsed file: looked up by token digest, compared in constant time. */
export class TokenTable {
  readonly #entries: readonly Entry[];
  constructor(entries: readonly Entry[]) {
    this.#entries = entries;
  }

  get size(): number {
    return this.#entries.length;
  }

  /**
   * Every entry is compared, whatever matched earlier, and only fixed-size digests are compared,
   * so the time taken says nothing about how much of a token was right.
   */
  lookup(token: string): UserInfo | undefined {
    const digest = sha256(token);
    let found: UserInfo | undefined;
    for (const entry of this.#entries) {
      if (timingSafeEqual(entry.digest, digest)) found = entry.user;
    }
    return found;
  }
}

function sha256(value: string): Buffer {
  return createHash("sha256").update(value, "utf8").digest();
}

export interface ParsedTokenFile {
  readonly table: TokenTable;
  /** Messages about skipped or repeated records; they name records, never tokens. */
  readonly warnings: readonly string[];
}

/** Parses the file's text; `source` names it in messages. Throws TokenFileError. */
export function parseTokenFile(text: string, source: string): ParsedTokenFile {
  let records: ReturnType<typeof parseCsv>;
  try {
    records = parseCsv(text);
  } catch (err) {
    if (err instanceof CsvError) throw new TokenFileError(`token file '${source}': ${err.message}`);
    throw err;
  }
  const byToken = new Map<string, UserInfo>();
  const warnings: string[] = [];
  let recordNum = 0;
  for (const { line, fields } of records) {
    if (fields.length < 3) {
      throw new TokenFileError(
        `token file '${source}' must have at least 3 columns (token, user name, user uid), found ${fields.length} on line ${line}`,
      );
    }
    recordNum++;
    const [token, username, uid, groupList] = fields as [string, string, string, string | undefined];
    if (token === "") {
      warnings.push(
        `empty token has been found in token file '${source}', record number '${recordNum}' (line ${line})`,
      );
      continue;
    }
    if (byToken.has(token)) {
      warnings.push(
        `duplicate token has been found in token file '${source}', record number '${recordNum}' (line ${line})`,
      );
      byToken.delete(token);
    }
    // Upstream would turn an empty group column into a group named ""; such names are dropped.
    const groups = groupList === undefined ? [] : groupList.split(",").filter((g) => g !== "");
    byToken.set(token, { username, uid, groups, extra: {} });
  }
  const entries = [...byToken].map(([token, user]) => ({ digest: sha256(token), user }));
  return { table: new TokenTable(entries), warnings };
}

export interface TokenFileOptions {
  readonly path: string;
  /** How often to look for changes (mtime, size, inode, then content); 0 turns reloading off. */
  readonly reloadIntervalMs?: number;
  readonly log?: TokenFileLog;
}

export interface TokenFileAuthenticator extends TokenAuthenticator {
  /** Re-reads the file now; true when a new table was taken. */
  reload(): Promise<boolean>;
  /** Entries in force. */
  readonly size: number;
  /** Stops watching the file. */
  close(): void;
}

interface Seen {
  readonly stamp: string;
  readonly contentHash: string;
}

async function readWithStamp(path: string): Promise<{ text: string; stamp: string }> {
  const s = await stat(path);
  const text = await readFile(path, "utf8");
  return { text, stamp: `${s.ino}:${s.size}:${s.mtimeMs}` };
}

/** Loads the file (a bad file is a start-up error, as upstream) and keeps it current. */
export async function tokenFileAuthenticator(options: TokenFileOptions): Promise<TokenFileAuthenticator> {
  const log = options.log ?? console;
  const { path } = options;
  let first: { text: string; stamp: string };
  try {
    first = await readWithStamp(path);
  } catch (err) {
    throw new TokenFileError(`token file '${path}': ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
  }
  const parsed = parseTokenFile(first.text, path);
  for (const w of parsed.warnings) log.warn(w);
  let table = parsed.table;
  let seen: Seen = { stamp: first.stamp, contentHash: sha256(first.text).toString("hex") };
  let running: Promise<boolean> | undefined;

  async function check(force: boolean): Promise<boolean> {
    let next: { text: string; stamp: string };
    try {
      const s = await stat(path);
      const stamp = `${s.ino}:${s.size}:${s.mtimeMs}`;
      // Same stamp: nothing changed, unless the file was written so recently that a rewrite of
      // the same size could hide within the file system's timestamp granularity.
      if (!force && stamp === seen.stamp && Date.now() - s.mtimeMs > 2_000) return false;
      next = await readWithStamp(path);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? "error";
      const stamp = `unreadable:${code}`;
      // Said once per kind of failure, not at every poll.
      if (stamp !== seen.stamp)
        log.error(`token file '${path}' cannot be read (${code}); keeping ${table.size} tokens`);
      seen = { stamp, contentHash: seen.contentHash };
      return false;
    }
    const contentHash = sha256(next.text).toString("hex");
    const unchanged = contentHash === seen.contentHash;
    seen = { stamp: next.stamp, contentHash };
    if (unchanged) return false;
    try {
      const result = parseTokenFile(next.text, path);
      for (const w of result.warnings) log.warn(w);
      table = result.table;
      log.info(`token file '${path}' reloaded: ${table.size} tokens`);
      return true;
    } catch (err) {
      log.error(`${(err as Error).message}; keeping the previous ${table.size} tokens`);
      return false;
    }
  }

  function checkOnce(force: boolean): Promise<boolean> {
    // One check at a time; a call during a check waits for it and then looks again.
    const mine = (running ?? Promise.resolve(false)).then(() => check(force)).catch(() => false);
    const tracked = mine.finally(() => {
      if (running === tracked) running = undefined;
    });
    running = tracked;
    return mine;
  }

  const interval = options.reloadIntervalMs ?? 5_000;
  const timer =
    interval > 0
      ? setInterval(() => {
          if (running) return;
          void checkOnce(false);
        }, interval)
      : undefined;
  timer?.unref();

  return {
    name: "token-file",
    authenticateToken(token) {
      const user = table.lookup(token);
      // An unknown token is not this authenticator's to reject: others may know it.
      return user ? { kind: "user", user } : { kind: "none" };
    },
    reload: () => checkOnce(true),
    get size() {
      return table.size;
    },
    close() {
      if (timer) clearInterval(timer);
    },
  };
}
