// The server's log, in upstream's shape: `-v` verbosity levels, `--logging-format=text` (klog's
// header, then the quoted message and key=value pairs) or `json` (one object per line with `ts`,
// `msg`, `v` and the pairs), and httplog's line per HTTP request from level 3 on. The code logs
// through pino; each line pino makes is filtered by its verbosity and rewritten here.
import type { Writable } from "node:stream";
import type { FastifyInstance } from "fastify";
import { type Logger, pino } from "pino";
import { reportedVerb } from "./metrics-routes.ts";
import { AUDIT_ID_HEADER } from "./pipeline/take-over.ts";
import { parseRequestInfo } from "./request/request-info.ts";

export type LogFormat = "text" | "json";

/** httplog's level: one line per request from this verbosity on. */
export const REQUEST_LOG_LEVEL = 3;

// pino's numeric levels.
const ERROR = 50;
const WARN = 40;
const DEBUG = 20;
const TRACE = 10;

/**
 * Keys whose values are credentials: never written, whatever the level (a safety net; the code
 * does not log them in the first place).
 */
const CREDENTIAL_KEYS =
  /^(authorization|proxy-authorization|token|bearertoken|password|secret|privatekey|keypem|key|client-key-data|token-data|data|stringdata|cookie|set-cookie)$/i;

export interface LoggerOptions {
  readonly verbosity: number;
  readonly format: LogFormat;
  /** Where lines go (standard output when absent). */
  readonly out?: Pick<Writable, "write">;
  readonly name?: string;
}

export function createLogger(options: LoggerOptions): Logger {
  const out = options.out ?? process.stdout;
  const { verbosity, format } = options;
  return pino(
    {
      name: options.name ?? "cluster-gateway",
      // Levels above 0 reach pino's debug and trace calls; each line's `v` then decides.
      level: verbosity > 0 ? "trace" : "info",
      base: undefined,
    },
    {
      write(line: string) {
        const formatted = formatLine(line, verbosity, format);
        if (formatted !== undefined) out.write(formatted);
      },
    },
  );
}

/** One pino line as the configured format, or undefined when its verbosity is above the level. */
export function formatLine(line: string, verbosity: number, format: LogFormat): string | undefined {
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return line;
  }
  const { level: rawLevel, time, msg, name, v: rawV, ...fields } = entry;
  const level = typeof rawLevel === "number" ? rawLevel : 30;
  const v = typeof rawV === "number" ? rawV : level <= TRACE ? 4 : level <= DEBUG ? 2 : 0;
  if (level < WARN && v > verbosity) return undefined;
  const ms = typeof time === "number" ? time : Date.now();
  const pairs = Object.entries(fields).map(([key, value]) => [key, scrub(key, value)] as const);
  if (format === "json") {
    const out: Record<string, unknown> = { ts: ms / 1000, msg: String(msg ?? "") };
    if (level < ERROR) out.v = v;
    for (const [key, value] of pairs) out[key] = value;
    return `${JSON.stringify(out)}\n`;
  }
  const severity = level >= ERROR ? "E" : level >= WARN ? "W" : "I";
  const text = pairs.map(([key, value]) => ` ${key}=${textValue(value)}`).join("");
  return `${severity}${klogTime(ms)} ${String(process.pid).padStart(7)} ${String(name ?? "gateway")}] ${JSON.stringify(String(msg ?? ""))}${text}\n`;
}

/** Credentials are replaced, and errors reduced to their message as klog writes them. */
function scrub(key: string, value: unknown): unknown {
  if (CREDENTIAL_KEYS.test(key)) return "[redacted]";
  if (value && typeof value === "object" && !Array.isArray(value)) {
    const record = value as Record<string, unknown>;
    if (key === "err" && typeof record.message === "string") return record.message;
    return Object.fromEntries(Object.entries(record).map(([k, v]) => [k, scrub(k, v)]));
  }
  return value;
}

function textValue(value: unknown): string {
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  if (typeof value === "string") return JSON.stringify(value);
  return JSON.stringify(JSON.stringify(value ?? null));
}

/** klog's `mmdd hh:mm:ss.uuuuuu`, local time. */
function klogTime(ms: number): string {
  const d = new Date(ms);
  const two = (n: number) => String(n).padStart(2, "0");
  const micros = String(Math.floor((ms % 1000) * 1000)).padStart(6, "0");
  return `${two(d.getMonth() + 1)}${two(d.getDate())} ${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}.${micros}`;
}

/** A duration as Go prints it (`812.4µs`, `3.2ms`, `1.5s`), as httplog's latency. */
export function goDuration(ms: number): string {
  if (ms < 1) return `${Number((ms * 1000).toFixed(3))}µs`;
  if (ms < 1000) return `${Number(ms.toFixed(6))}ms`;
  return `${Number((ms / 1000).toFixed(9))}s`;
}

/**
 * httplog's line for every request, written when its response ends: verb (as the metrics report
 * it), URI, latency, user agent, audit ID, source address, and the status code (`hijacked` for a
 * connection taken over by an upgrade).
 */
export function registerRequestLog(app: FastifyInstance, log: Logger): void {
  app.addHook("onRequest", (req, reply, done) => {
    const begun = performance.now();
    const url = new URL(req.url, "https://localhost");
    const userAgent = req.headers["user-agent"] ?? "";
    const socket = req.raw.socket;
    const host = socket.remoteAddress ?? "";
    const srcIP = `${host.includes(":") ? `[${host}]` : host}:${socket.remotePort ?? ""}`;
    reply.raw.once("close", () => {
      const info = parseRequestInfo(req.method, req.url, url.searchParams);
      const status = reply.raw.statusCode;
      const auditId = reply.getHeader(AUDIT_ID_HEADER);
      log.info(
        {
          v: REQUEST_LOG_LEVEL,
          verb: reportedVerb(req.method, req.headers["content-type"], url.searchParams, info, false),
          URI: req.url,
          latency: goDuration(performance.now() - begun),
          userAgent,
          "audit-ID": typeof auditId === "string" ? auditId : "",
          srcIP,
          ...(status === 101 ? { hijacked: true } : { resp: status }),
        },
        "HTTP",
      );
    });
    done();
  });
}
