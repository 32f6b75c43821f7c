// /livez, /readyz and /healthz: named checks, `?verbose` for humans, `?exclude=<check>`, and
// `/<endpoint>/<check>` for one check. Machines read only the status code. Callers pass
// authentication and authorization like everywhere else (anonymous probes get in through RBAC's
// system:public-info-viewer).
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { AccessGuard } from "./authorization/guard.ts";

export type HealthCheck = () => Promise<void> | void;

export interface HealthEndpoints {
  readonly livez: ReadonlyMap<string, HealthCheck>;
  readonly readyz: ReadonlyMap<string, HealthCheck>;
}

const CHECK_TIMEOUT_MS = 5_000;

async function runCheck(check: HealthCheck): Promise<string | undefined> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      check(),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error("timed out")), CHECK_TIMEOUT_MS);
      }),
    ]);
    return undefined;
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  } finally {
    clearTimeout(timer);
  }
}

function queryList(value: unknown): string[] {
  if (value === undefined) return [];
  return (Array.isArray(value) ? value : [value]).map(String);
}

async function report(
  name: string,
  checks: ReadonlyMap<string, HealthCheck>,
  req: FastifyRequest,
  reply: FastifyReply,
): Promise<string> {
  const query = req.query as Record<string, unknown>;
  const verbose = query.verbose !== undefined && query.verbose !== "false";
  const excluded = new Set(queryList(query.exclude));
  const lines: string[] = [];
  let failed = false;
  for (const [check, run] of checks) {
    if (excluded.delete(check)) {
      lines.push(`[+]${check} excluded: ok`);
      continue;
    }
    const error = await runCheck(run);
    if (error === undefined) lines.push(`[+]${check} ok`);
    else {
      failed = true;
      // The reason goes to the log, not to unauthenticated callers.
      req.log.warn({ check, error }, `${name} check failed`);
      lines.push(`[-]${check} failed: reason withheld`);
    }
  }
  if (excluded.size > 0) {
    lines.push(
      `warn: some health checks cannot be excluded: no matches for ${[...excluded].map((e) => `"${e}"`).join(",")}`,
    );
  }
  reply.type("text/plain; charset=utf-8").header("x-content-type-options", "nosniff");
  if (failed) {
    reply.code(500);
    return `${lines.join("\n")}\n${name} check failed\n`;
  }
  return verbose ? `${lines.join("\n")}\n${name} check passed\n` : "ok";
}

/** Checks that count as passing until `graceMs` after `startedAt` (`--livez-grace-period`). */
function withGrace(
  checks: ReadonlyMap<string, HealthCheck>,
  startedAt: number,
  graceMs: number,
): Map<string, HealthCheck> {
  const out = new Map<string, HealthCheck>();
  for (const [name, check] of checks) {
    out.set(name, async () => {
      try {
        await check();
      } catch (err) {
        if (Date.now() - startedAt >= graceMs) throw err;
      }
    });
  }
  return out;
}

export interface HealthOptions {
  /** Authentication, impersonation and authorization for every health path. */
  readonly guard: AccessGuard;
  /** `--livez-grace-period`: failing liveness checks pass until this long after `startedAt`. */
  readonly livezGracePeriodMs?: number;
  readonly startedAt?: number;
}

export function registerHealth(
  app: FastifyInstance,
  endpoints: HealthEndpoints,
  options: HealthOptions,
): void {
  const onRequest = options.guard;
  const livez = options.livezGracePeriodMs
    ? withGrace(endpoints.livez, options.startedAt ?? Date.now(), options.livezGracePeriodMs)
    : endpoints.livez;
  const routes: [string, ReadonlyMap<string, HealthCheck>][] = [
    ["livez", livez],
    ["readyz", endpoints.readyz],
    // The deprecated endpoint reports everything readiness does.
    ["healthz", endpoints.readyz],
  ];
  for (const [name, checks] of routes) {
    app.get(`/${name}`, { onRequest }, (req, reply) => report(name, checks, req, reply));
    app.get(`/${name}/:check`, { onRequest }, async (req, reply) => {
      const { check } = req.params as { check: string };
      const run = checks.get(check);
      reply.type("text/plain; charset=utf-8").header("x-content-type-options", "nosniff");
      if (!run) {
        reply.code(404);
        return "404 page not found\n";
      }
      const error = await runCheck(run);
      if (error !== undefined) {
        req.log.warn({ check, error }, `${name} check failed`);
        reply.code(500);
        return `[-]${check} failed: reason withheld\n${name} check failed\n`;
      }
      return "ok";
    });
  }
}
