// Where audit events go: the log backend (a file with size-based rotation, or standard output;
// JSON lines or upstream's one-line legacy format) and the webhook backend (EventList bodies
// POSTed to the peer a kubeconfig names, retried with exponential backoff). Each is wrapped per
// its mode as upstream does: `blocking` writes in the request and ignores failures,
// `blocking-strict` lets a failure fail the request, `batch` buffers and sends in the
// background. Failures are counted per plugin (`apiserver_audit_error_total`), never thrown.
import {
  closeSync,
  createReadStream,
  createWriteStream,
  existsSync,
  fstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  renameSync,
  statSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import { rm } from "node:fs/promises";
import { basename, dirname, extname, join } from "node:path";
import { pipeline } from "node:stream/promises";
import { setTimeout as sleep } from "node:timers/promises";
import { createGzip } from "node:zlib";
import type { Naming } from "../../backends/naming/index.ts";
import { ApiClient, loadKubeconfig } from "../../plugins/client/index.ts";

export type AuditEvent = Record<string, unknown>;

export interface AuditBackend {
  /** False when an event could not be stored (only a blocking-strict caller acts on it). */
  process(events: readonly AuditEvent[]): boolean | Promise<boolean>;
  /** Sends what is buffered and closes. */
  shutdown(): Promise<void>;
}

/** Counts events a plugin failed to store (`apiserver_audit_error_total{plugin}`). */
export type PluginErrorHandler = (plugin: string, events: number, err: unknown) => void;

export type AuditMode = "batch" | "blocking" | "blocking-strict";
export const AUDIT_MODES: readonly AuditMode[] = ["batch", "blocking", "blocking-strict"];

export interface BatchConfig {
  readonly bufferSize: number;
  readonly maxBatchSize: number;
  /** Milliseconds. */
  readonly maxBatchWait: number;
  readonly throttleEnable: boolean;
  readonly throttleQps: number;
  readonly throttleBurst: number;
  /** Sends batches without waiting for the previous one (the webhook's; the log's are in order). */
  readonly asyncDelegate: boolean;
}

// ---- log ----

export interface LogBackendOptions {
  /** A file, or `-` for standard output. */
  readonly path: string;
  readonly format: "json" | "legacy";
  /** Days a rotated file is kept (0: no limit). */
  readonly maxAge: number;
  /** Rotated files kept (0: all). */
  readonly maxBackups: number;
  /** Megabytes before the file is rotated (0: upstream's rotation default, 100). */
  readonly maxSize: number;
  /** Gzip rotated files (`<backup>.gz`), in the background, as lumberjack does. */
  readonly compress?: boolean;
}

// One JSON encoding per event, shared by the truncate plugin's sizing and the log's line. Kept on
// the event under a hidden symbol (JSON.stringify skips it), not in a WeakMap: V8's young-generation
// collections keep the entries of a WeakMap keyed by young objects, so every audited request's
// event and its JSON outlived them until a full collection.
const ENCODED = Symbol("encoded event");
type Encoded = AuditEvent & { [ENCODED]?: string };
export function encodeEvent(ev: AuditEvent): string {
  let json = (ev as Encoded)[ENCODED];
  if (json === undefined) {
    json = JSON.stringify(ev);
    // Not enumerable: a copy made by spreading the event (the truncate plugin's) must encode anew.
    Object.defineProperty(ev, ENCODED, { value: json, writable: true, configurable: true });
  }
  return json;
}

const DEFAULT_MAX_SIZE_MB = 100;

/** Go's RFC3339Nano: the fraction without its trailing zeros. */
function rfc3339Nano(ts: unknown): string {
  return String(ts ?? "").replace(/\.(\d*?)0+Z$/, (_m, digits: string) => (digits ? `.${digits}Z` : "Z"));
}

function quoteList(list: unknown): string {
  return (list as string[]).map((g) => JSON.stringify(g)).join(",");
}

/** Upstream's one-line text form of an event (its "legacy" log format). */
export function legacyLine(ev: AuditEvent): string {
  const user = (ev.user ?? {}) as { username?: string; groups?: string[] };
  const as = ev.impersonatedUser as { username?: string; groups?: string[] } | undefined;
  const username = user.username ? user.username : "<none>";
  const groups = user.username && user.groups?.length ? quoteList(user.groups) : "<none>";
  const asUser = as ? (as.username ?? "") : "<self>";
  const asGroups = as?.groups ? quoteList(as.groups) : "<lookup>";
  const ref = ev.objectRef as { namespace?: string } | undefined;
  const status = ev.responseStatus as { code?: number } | undefined;
  const ip = (ev.sourceIPs as string[] | undefined)?.[0] ?? "<unknown>";
  const q = JSON.stringify;
  return `${rfc3339Nano(ev.requestReceivedTimestamp)} AUDIT: id=${q(ev.auditID)} stage=${q(ev.stage)} ip=${q(ip)} method=${q(ev.verb)} user=${q(username)} groups=${q(groups)} as=${q(asUser)} asgroups=${q(asGroups)} user-agent=${q(ev.userAgent)} namespace=${q(ref?.namespace || "<none>")} uri=${q(ev.requestURI)} response="${status?.code !== undefined ? String(status.code) : "<deferred>"}"`;
}

/** lumberjack's backup name: `<name>-<UTC time with dashes>.<ext>` beside the file. */
function backupName(path: string, now: Date): string {
  const ext = extname(path);
  const stem = basename(path, ext);
  const stamp = now.toISOString().replace(/:/g, "-").replace(/Z$/, "");
  return join(dirname(path), `${stem}-${stamp}${ext}`);
}

export class LogBackend implements AuditBackend {
  readonly #options: LogBackendOptions;
  readonly #onError: PluginErrorHandler;
  readonly #maxBytes: number;
  #fd = -1;
  #size = 0;
  #milling: Promise<void> | undefined;

  /** Opens (creating) the file now, so an unusable path stops the start. */
  constructor(options: LogBackendOptions, onError: PluginErrorHandler) {
    this.#options = options;
    this.#onError = onError;
    this.#maxBytes = (options.maxSize > 0 ? options.maxSize : DEFAULT_MAX_SIZE_MB) * 1024 * 1024;
    if (options.path === "-") this.#fd = 1;
    else {
      mkdirSync(dirname(options.path), { recursive: true, mode: 0o700 });
      this.#open();
    }
  }

  #open(): void {
    // As lumberjack: a directory removed under the log is made again.
    mkdirSync(dirname(this.#options.path), { recursive: true, mode: 0o700 });
    this.#fd = openSync(this.#options.path, "a", 0o600);
    this.#size = fstatSync(this.#fd).size;
  }

  /** Moves the file to its backup name and starts a new one; a failure leaves no file open. */
  #rotate(): void {
    if (this.#fd >= 0) closeSync(this.#fd);
    this.#fd = -1;
    const { path } = this.#options;
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    if (existsSync(path)) renameSync(path, backupName(path, new Date()));
    this.#open();
    this.#mill();
  }

  /** The rotated files beside the log, newest first (compressed or not). */
  #backups(): { file: string; mtime: number }[] {
    const { path } = this.#options;
    const ext = extname(path);
    const stem = basename(path, ext);
    const dir = dirname(path);
    return readdirSync(dir)
      .filter(
        (f) =>
          f.startsWith(`${stem}-`) && (f.endsWith(ext) || f.endsWith(`${ext}.gz`)) && f !== basename(path),
      )
      .map((f) => ({ file: join(dir, f), mtime: statSync(join(dir, f)).mtimeMs }))
      .sort((a, b) => b.mtime - a.mtime);
  }

  /** After a rotation, in order: prune, then compress what is left (one run at a time). */
  #mill(): void {
    const run = async (): Promise<void> => {
      this.#prune();
      if (this.#options.compress) await this.#compress();
    };
    this.#milling = (this.#milling ?? Promise.resolve()).then(run, run);
  }

  /** Drops backups past --audit-log-maxbackup or older than --audit-log-maxage days (best effort). */
  #prune(): void {
    const { maxBackups, maxAge } = this.#options;
    if (maxBackups <= 0 && maxAge <= 0) return;
    try {
      const cutoff = Date.now() - maxAge * 24 * 3_600_000;
      this.#backups().forEach((b, i) => {
        if ((maxBackups > 0 && i >= maxBackups) || (maxAge > 0 && b.mtime < cutoff)) unlinkSync(b.file);
      });
    } catch {
      // A backup that cannot be removed stays; the log itself is unaffected.
    }
  }

  /** Gzips each uncompressed backup to `<name>.gz` and removes it; a failed one stays as it was. */
  async #compress(): Promise<void> {
    let pending: string[];
    try {
      pending = this.#backups()
        .map((b) => b.file)
        .filter((f) => !f.endsWith(".gz"));
    } catch {
      return;
    }
    for (const file of pending) {
      const gz = `${file}.gz`;
      try {
        await pipeline(createReadStream(file), createGzip(), createWriteStream(gz, { mode: 0o600 }));
        unlinkSync(file);
      } catch {
        await rm(gz, { force: true });
      }
    }
  }

  process(events: readonly AuditEvent[]): boolean {
    let ok = true;
    for (const ev of events) {
      const line = `${this.#options.format === "legacy" ? legacyLine(ev) : encodeEvent(ev)}\n`;
      const bytes = Buffer.byteLength(line);
      try {
        if (this.#fd !== 1) {
          if (this.#fd < 0) this.#open();
          if (this.#size > 0 && this.#size + bytes > this.#maxBytes) this.#rotate();
        }
        writeSync(this.#fd, line);
        this.#size += bytes;
      } catch (err) {
        ok = false;
        this.#onError("log", 1, err);
      }
    }
    return ok;
  }

  async shutdown(): Promise<void> {
    if (this.#fd > 2) closeSync(this.#fd);
    this.#fd = -1;
    await this.#milling;
  }
}

// ---- truncate ----

export interface TruncateConfig {
  /** Bytes of one encoded event; a bigger one loses its bodies, and if still bigger is dropped. */
  readonly maxEventSize: number;
  /** Bytes of encoded events handed to the delegate at once; a bigger batch is split. */
  readonly maxBatchSize: number;
  /** `audit.<domain>/truncated`, set to "true" on an event that lost its bodies. */
  readonly annotationKey: string;
}

/** An event's encoded size as the log writes it (the JSON and its newline). */
function eventSize(ev: AuditEvent): number {
  return Buffer.byteLength(encodeEvent(ev)) + 1;
}

/** Upstream's truncate plugin, in front of a backend's mode (`--audit-<log|webhook>-truncate-*`). */
export class TruncateBackend implements AuditBackend {
  readonly #delegate: AuditBackend;
  readonly #config: TruncateConfig;
  readonly #onError: PluginErrorHandler;

  constructor(delegate: AuditBackend, config: TruncateConfig, onError: PluginErrorHandler) {
    this.#delegate = delegate;
    this.#config = config;
    this.#onError = onError;
  }

  process(events: readonly AuditEvent[]): boolean | Promise<boolean> {
    const { maxEventSize, maxBatchSize, annotationKey } = this.#config;
    const results: (boolean | Promise<boolean>)[] = [];
    let batch: AuditEvent[] = [];
    let batchSize = 0;
    let dropped = 0;
    for (let ev of events) {
      let size = eventSize(ev);
      // Only an event with bodies (Request level and above) has anything to leave out.
      if (size > maxEventSize && (ev.level === "Request" || ev.level === "RequestResponse")) {
        const { requestObject: _req, responseObject: _res, ...rest } = ev;
        ev = { ...rest, annotations: { ...(ev.annotations as object | undefined), [annotationKey]: "true" } };
        size = eventSize(ev);
      }
      if (size > maxEventSize) {
        dropped++;
        continue;
      }
      if (batch.length > 0 && batchSize + size > maxBatchSize) {
        results.push(this.#delegate.process(batch));
        batch = [];
        batchSize = 0;
      }
      batch.push(ev);
      batchSize += size;
    }
    if (batch.length > 0) results.push(this.#delegate.process(batch));
    if (dropped > 0)
      this.#onError("truncate", dropped, new Error("event is too large even after truncating"));
    if (results.some((r) => r instanceof Promise))
      return Promise.all(results).then((all) => all.every(Boolean));
    return results.every(Boolean);
  }

  shutdown(): Promise<void> {
    return this.#delegate.shutdown();
  }
}

// ---- webhook ----

export interface WebhookBackendOptions {
  readonly configFile: string;
  /** Milliseconds before the first retry; each next wait is 1.5 times longer (5 attempts). */
  readonly initialBackoff: number;
  readonly apiVersion: string;
  readonly naming: Naming;
}

const WEBHOOK_ATTEMPTS = 5;
const WEBHOOK_TIMEOUT_MS = 30_000;

export class WebhookBackend implements AuditBackend {
  readonly #client: ApiClient;
  readonly #options: WebhookBackendOptions;
  readonly #onError: PluginErrorHandler;

  /** Reads the kubeconfig now: a bad one stops the start, naming the file and field. */
  constructor(options: WebhookBackendOptions, onError: PluginErrorHandler) {
    this.#options = options;
    this.#onError = onError;
    this.#client = new ApiClient(loadKubeconfig(options.configFile), { naming: options.naming });
  }

  async process(events: readonly AuditEvent[]): Promise<boolean> {
    const body = { kind: "EventList", apiVersion: this.#options.apiVersion, metadata: {}, items: events };
    let wait = this.#options.initialBackoff;
    let lastError: unknown;
    for (let attempt = 0; attempt < WEBHOOK_ATTEMPTS; attempt++) {
      if (attempt > 0) {
        // Jitter of up to 20%, as upstream's retry backoff.
        await sleep(wait * (1 + Math.random() * 0.2));
        wait *= 1.5;
      }
      try {
        const reply = await this.#client.request("POST", "", { body, timeoutMs: WEBHOOK_TIMEOUT_MS });
        if (reply.status >= 200 && reply.status < 300) return true;
        lastError = new Error(`the audit webhook answered ${reply.status}`);
      } catch (err) {
        lastError = err;
      }
    }
    this.#onError("webhook", events.length, lastError);
    return false;
  }

  async shutdown(): Promise<void> {
    await this.#client.close();
  }
}

// ---- modes ----

/** `blocking`: the request waits for the write, and a failed one is only counted. */
class IgnoreErrors implements AuditBackend {
  readonly #delegate: AuditBackend;
  constructor(delegate: AuditBackend) {
    this.#delegate = delegate;
  }
  process(events: readonly AuditEvent[]): boolean | Promise<boolean> {
    const r = this.#delegate.process(events);
    return r instanceof Promise ? r.then(() => true) : true;
  }
  shutdown(): Promise<void> {
    return this.#delegate.shutdown();
  }
}

/** `batch`: events wait in a bounded buffer and go to the delegate in batches, off the request. */
export class BufferedBackend implements AuditBackend {
  readonly #delegate: AuditBackend;
  readonly #config: BatchConfig;
  readonly #onError: PluginErrorHandler;
  #buffer: AuditEvent[] = [];
  #timer: NodeJS.Timeout | undefined;
  #draining: Promise<void> | undefined;
  readonly #sending = new Set<Promise<unknown>>();
  #tokens: number;
  #tokensAt = Date.now();

  constructor(delegate: AuditBackend, config: BatchConfig, onError: PluginErrorHandler) {
    this.#delegate = delegate;
    this.#config = config;
    this.#onError = onError;
    this.#tokens = config.throttleBurst;
  }

  process(events: readonly AuditEvent[]): boolean {
    for (let i = 0; i < events.length; i++) {
      if (this.#buffer.length >= this.#config.bufferSize) {
        this.#onError("buffered", events.length - i, new Error("audit buffer queue blocked"));
        break;
      }
      this.#buffer.push(events[i] as AuditEvent);
    }
    if (this.#buffer.length >= this.#config.maxBatchSize) this.#drain(false);
    else this.#timer ??= setTimeout(() => this.#drain(true), this.#config.maxBatchWait);
    return true;
  }

  /** Waits for a throttle token (qps refill, burst capacity). */
  async #throttle(): Promise<void> {
    const { throttleEnable, throttleQps, throttleBurst } = this.#config;
    if (!throttleEnable || throttleQps <= 0) return;
    for (;;) {
      const now = Date.now();
      this.#tokens = Math.min(throttleBurst, this.#tokens + ((now - this.#tokensAt) / 1000) * throttleQps);
      this.#tokensAt = now;
      if (this.#tokens >= 1) {
        this.#tokens -= 1;
        return;
      }
      await sleep(((1 - this.#tokens) / throttleQps) * 1000);
    }
  }

  #drain(all: boolean): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#draining) {
      if (all) void this.#draining.then(() => this.#drain(true));
      return;
    }
    this.#draining = (async () => {
      while (this.#buffer.length >= this.#config.maxBatchSize || (all && this.#buffer.length > 0)) {
        const batch = this.#buffer.splice(0, this.#config.maxBatchSize);
        await this.#throttle();
        const sent = Promise.resolve(this.#delegate.process(batch));
        if (this.#config.asyncDelegate) {
          this.#sending.add(sent);
          void sent.finally(() => this.#sending.delete(sent));
        } else await sent;
      }
    })().finally(() => {
      this.#draining = undefined;
      if (this.#buffer.length > 0)
        this.#timer ??= setTimeout(() => this.#drain(true), this.#config.maxBatchWait);
    });
  }

  async shutdown(): Promise<void> {
    this.#drain(true);
    while (this.#draining || this.#sending.size > 0 || this.#buffer.length > 0) {
      await this.#draining;
      await Promise.all([...this.#sending]);
      if (this.#buffer.length > 0 && !this.#draining) this.#drain(true);
    }
    if (this.#timer) clearTimeout(this.#timer);
    await this.#delegate.shutdown();
  }
}

export function withMode(
  backend: AuditBackend,
  mode: AuditMode,
  batch: BatchConfig,
  onError: PluginErrorHandler,
): AuditBackend {
  if (mode === "blocking-strict") return backend;
  if (mode === "blocking") return new IgnoreErrors(backend);
  return new BufferedBackend(backend, batch, onError);
}

/** Every configured backend gets every event. */
export class UnionBackend implements AuditBackend {
  readonly #backends: readonly AuditBackend[];
  constructor(backends: readonly AuditBackend[]) {
    this.#backends = backends;
  }
  process(events: readonly AuditEvent[]): boolean | Promise<boolean> {
    const results = this.#backends.map((b) => b.process(events));
    if (results.some((r) => r instanceof Promise))
      return Promise.all(results).then((all) => all.every(Boolean));
    return results.every(Boolean);
  }
  async shutdown(): Promise<void> {
    await Promise.all(this.#backends.map((b) => b.shutdown()));
  }
}
