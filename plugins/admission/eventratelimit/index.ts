// EventRateLimit: core Events created or updated faster than their token buckets allow are
// refused with 429, per server, namespace, user, or event source and involved object.
import { Counter } from "prom-client";
import { objectOrEmpty as obj, asString as str } from "../../../backends/common/json.ts";
import type { AdmissionPlugin, Attributes, PluginEnv, PluginRegistration } from "../index.ts";
import { AdmissionError, sharedMetric } from "../index.ts";
import { type Buckets, LocalBuckets } from "./buckets.ts";
import { type LimitType, parseConfiguration } from "./config.ts";
import { connected, RedisBuckets, type RedisLink, redisClient } from "./redis-buckets.ts";

export {
  DEFAULT_CACHE_SIZE,
  EventRateLimitConfigError,
  LIMIT_TYPES,
  type Limit,
  type LimitType,
} from "./config.ts";

/** The bucket a request draws from, for each limit type (upstream's keys). */
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
      // Concatenated without a separator, as upstream does.
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

function fallbackCounter(env: PluginEnv): Counter {
  const name = "eventratelimit_redis_fallback_total";
  return sharedMetric(
    env.metrics,
    name,
    () =>
      new Counter({
        name,
        help: "EventRateLimit decisions taken with this replica's own buckets because Redis did not answer.",
        registers: [env.metrics],
      }),
  );
}

/** The shared Redis connection with outage bookkeeping: one log line per switch, a count per decision. */
async function redisLink(url: string, env: PluginEnv): Promise<RedisLink> {
  const client = redisClient(url);
  // Failures surface through commands (and the fallback); the client keeps reconnecting.
  client.on("error", () => {});
  await connected(client, 2000);
  const counter = fallbackCounter(env);
  let down = false;
  return {
    client,
    fellBack(err) {
      counter.inc();
      if (down) return;
      down = true;
      process.stderr.write(
        `EventRateLimit: Redis unavailable, limiting with this replica's own buckets: ${err instanceof Error ? err.message : String(err)}\n`,
      );
    },
    answered() {
      if (!down) return;
      down = false;
      process.stderr.write("EventRateLimit: Redis available again, buckets are shared\n");
    },
  };
}

async function createEventRateLimit(env: PluginEnv): Promise<AdmissionPlugin> {
  const limits = parseConfiguration(env.configuration, env.naming);
  const link = env.options.redisUrl ? await redisLink(env.options.redisUrl, env) : undefined;
  const enforcers = limits.map((limit) => {
    const local = new LocalBuckets(limit.qps, limit.burst, limit.cacheSize);
    const buckets: Buckets = link
      ? new RedisBuckets({
          link,
          prefix: `${env.naming.productName}:eventratelimit:${limit.type}:`,
          qps: limit.qps,
          burst: limit.burst,
          fallback: local,
        })
      : local;
    return { type: limit.type, buckets };
  });
  return {
    name: "EventRateLimit",
    async validate(a) {
      // Upstream: creates and updates whose kind (at the request's version) is the core Event;
      // events.<domain> Events and dry runs are treated as upstream treats them (ignored; counted).
      if (a.operation !== "CREATE" && a.operation !== "UPDATE") return;
      if (a.kind.group !== "" || a.kind.kind !== "Event") return;
      // Every limit takes its token even when another refuses, as upstream's enforcers do.
      const results = await Promise.all(
        enforcers.map(async (e) => {
          const key = keyOf(e.type, a);
          return (await e.buckets.take(key)) ? undefined : `limit reached on type ${e.type} for key ${key}`;
        }),
      );
      // Upstream reports the last refusing limit.
      const refused = results.filter((r) => r !== undefined).at(-1);
      if (refused !== undefined)
        throw new AdmissionError(429, "TooManyRequests", `Too many requests: ${refused}`);
    },
    async close() {
      await Promise.all(enforcers.map((e) => e.buckets.close()));
      link?.client.disconnect();
    },
  };
}

export const registration: PluginRegistration = { name: "EventRateLimit", factory: createEventRateLimit };
