// EventRateLimit: core Events created or updated faster than their token buckets allow are
// refused with 429, per server, namespace, user, or event source and object.
import { Counter } from "prom-client";
import type { AdmissionPlugin, Attributes, PluginEnv, PluginRegistration } from "../index.ts";
import { AdmissionError } from "../index.ts";
import { type Buckets, LocalBuckets } from "./buckets.ts";
import { type Limit, type LimitType, parseConfiguration } from "./config.ts";
import { RedisBuckets, redisClient } from "./redis-buckets.ts";

export { EventRateLimitConfigError } from "./config.ts";

const str = (v: unknown) => (typeof v === "string" ? v : "");
const obj = (v: unknown) => (typeof v === "object" && v !== null ? (v as Record<string, unknown>) : {});

/** The bucket a request draws from, for each limit type. */
function keyOf(type: LimitType, a: Attributes): string {
  switch (type) {
    case "Server":
      return "";
    case "Namespace":
      return a.namespace;
    case "User":
      return a.user.username;
    case "SourceAndObject": {
      const event = obj(a.object);
      const source = obj(event.source);
      const involved = obj(event.involvedObject);
      return [
        str(source.component),
        str(source.host),
        str(involved.kind),
        str(involved.namespace),
        str(involved.name),
        str(involved.uid),
        str(involved.apiVersion),
      ].join("");
    }
  }
}

/** Waits a little for the first connection, so that the first events already share buckets. */
async function connected(client: ReturnType<typeof redisClient>, ms: number): Promise<void> {
  if (client.status === "ready") return;
  await new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(timer);
      client.off("ready", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    timer.unref?.();
    client.once("ready", done);
  });
}

async function createEventRateLimit(env: PluginEnv): Promise<AdmissionPlugin> {
  const limits = parseConfiguration(env.configuration, env.naming);
  const redisUrl = env.options.redisUrl;
  const client = redisUrl ? redisClient(redisUrl) : undefined;
  // Connection errors surface through commands (and the fallback); the client keeps retrying.
  client?.on("error", () => {});
  if (client) await connected(client, 2000);
  const fallbacks =
    (env.metrics.getSingleMetric("eventratelimit_redis_fallback_total") as Counter | undefined) ??
    new Counter({
      name: "eventratelimit_redis_fallback_total",
      help: "EventRateLimit decisions taken with this replica's own buckets because Redis did not answer.",
      registers: [env.metrics],
    });
  const enforcers = limits.map((limit: Limit) => {
    const local = new LocalBuckets(limit.qps, limit.burst, limit.type === "Server" ? 1 : limit.cacheSize);
    const buckets: Buckets = client
      ? new RedisBuckets({
          client,
          prefix: `${env.naming.productName}:eventratelimit:${limit.type}:`,
          qps: limit.qps,
          burst: limit.burst,
          fallback: local,
          onFallback: () => fallbacks.inc(),
        })
      : local;
    return { type: limit.type, buckets };
  });
  return {
    name: "EventRateLimit",
    async validate(a) {
      if (a.operation !== "CREATE" && a.operation !== "UPDATE") return;
      if (a.kind.group !== "" || a.kind.kind !== "Event") return;
      // Every limit takes its token, even when another one already refuses (as upstream).
      let refused: string | undefined;
      for (const e of enforcers) {
        const key = keyOf(e.type, a);
        if (!(await e.buckets.take(key))) refused = `limit reached on type ${e.type} for key ${key}`;
      }
      if (refused !== undefined)
        throw new AdmissionError(429, "TooManyRequests", `Too many requests: ${refused}`);
    },
    async close() {
      await Promise.all(enforcers.map((e) => e.buckets.close()));
      client?.disconnect();
    },
  };
}

export const registration: PluginRegistration = { name: "EventRateLimit", factory: createEventRateLimit };
