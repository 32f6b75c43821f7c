import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { Redis } from "ioredis";
import { type AdmissionTest, startAdmissionTest } from "../../../gateway/admission/testing.ts";
import { type RedisServer, skipUnlessRedis, startRedis } from "../../../test/support/redis.ts";
import { AdmissionError, type AdmissionPlugin, type JsonObject, type Operation } from "../index.ts";
import { LocalBuckets } from "./buckets.ts";
import { EventRateLimitConfigError, registration } from "./index.ts";

const event = (name: string, ns: string, involved = "pod-a", component = "kubelet"): JsonObject => ({
  apiVersion: "v1",
  kind: "Event",
  metadata: { name, namespace: ns },
  involvedObject: { kind: "Pod", namespace: ns, name: involved, apiVersion: "v1" },
  source: { component, host: "node-1" },
  reason: "Started",
  message: "started",
});

const is429 = (message?: string) => (err: unknown) => {
  assert.ok(err instanceof AdmissionError, String(err));
  assert.equal(err.code, 429);
  assert.equal(err.reason, "TooManyRequests");
  if (message !== undefined) assert.equal(err.message, message);
  return true;
};

describe("EventRateLimit", () => {
  let t: AdmissionTest;
  const plugins: AdmissionPlugin[] = [];
  before(async () => {
    t = await startAdmissionTest();
  });
  after(async () => {
    for (const p of plugins) await p.close?.();
    await t?.stop();
  });

  const configuration = (limits: unknown) => ({
    apiVersion: `${t.naming.group("eventratelimit.admission")}/v1alpha1`,
    kind: "Configuration",
    limits,
  });
  async function plugin(limits: JsonObject[], redisUrl?: string, env = t.env({})): Promise<AdmissionPlugin> {
    const p = await registration.factory({
      ...env,
      configuration: configuration(limits),
      options: { ...env.options, ...(redisUrl ? { redisUrl } : {}) },
    });
    plugins.push(p);
    return p;
  }
  interface Send {
    readonly user?: string;
    readonly operation?: Operation;
    readonly dryRun?: boolean;
    readonly group?: string;
  }
  const send = (p: AdmissionPlugin, object: JsonObject, o: Send = {}) =>
    Promise.resolve(
      p.validate?.(
        t.attributes({
          operation: o.operation ?? "CREATE",
          resource: "events",
          group: o.group,
          object,
          oldObject: o.operation === "UPDATE" ? object : undefined,
          dryRun: o.dryRun,
          user: { username: o.user ?? "alice", uid: "", groups: [], extra: {} },
        }),
      ),
    );
  /** How many of `objects` were let through; every refusal must be a 429. */
  async function accepted(p: AdmissionPlugin, objects: JsonObject[], o?: Send): Promise<number> {
    let n = 0;
    for (const object of objects) {
      try {
        await send(p, object, o);
        n++;
      } catch (err) {
        is429()(err);
      }
    }
    return n;
  }
  const many = (count: number, make: (i: number) => JsonObject) =>
    Array.from({ length: count }, (_, i) => make(i));

  test("configurations are validated as upstream does, at factory time", async () => {
    const cases: [string, unknown, RegExp | undefined][] = [
      [
        "none given (upstream's empty default)",
        undefined,
        /^EventRateLimit: limits: Invalid value: null: must not be empty$/,
      ],
      ["empty list", configuration([]), /limits: Invalid value: \[\]: must not be empty/],
      [
        "unknown type",
        configuration([{ type: "Cluster", qps: 1, burst: 1 }]),
        /^EventRateLimit: limits\[0\]\.type: Unsupported value: "Cluster": supported values: "Server", "Namespace", "User", "SourceAndObject"$/,
      ],
      ["missing type", configuration([{ qps: 1, burst: 1 }]), /limits\[0\]\.type: Unsupported value: ""/],
      [
        "qps 0",
        configuration([{ type: "Server", qps: 0, burst: 1 }]),
        /limits\[0\]\.qps: Invalid value: 0: must be positive/,
      ],
      [
        "qps absent",
        configuration([{ type: "Server", burst: 1 }]),
        /limits\[0\]\.qps: Invalid value: 0: must be positive/,
      ],
      [
        "negative burst",
        configuration([{ type: "Namespace", qps: 1, burst: -2 }]),
        /limits\[0\]\.burst: Invalid value: -2: must be positive/,
      ],
      [
        "negative cacheSize",
        configuration([{ type: "User", qps: 1, burst: 1, cacheSize: -1 }]),
        /limits\[0\]\.cacheSize: Invalid value: -1: must not be negative/,
      ],
      [
        "several errors aggregate in brackets",
        configuration([
          { type: "User", qps: 0, burst: 1 },
          { type: "Namespace", qps: 1, burst: 0 },
        ]),
        /^EventRateLimit: \[limits\[0\]\.qps: .*, limits\[1\]\.burst: .*\]$/,
      ],
      [
        "fractional qps",
        configuration([{ type: "Server", qps: 1.5, burst: 1 }]),
        /qps: Invalid value: 1.5: must be a 32-bit integer/,
      ],
      [
        "string burst",
        configuration([{ type: "Server", qps: 1, burst: "5" }]),
        /burst: Invalid value: "5": must be a 32-bit integer/,
      ],
      [
        "huge burst",
        configuration([{ type: "Server", qps: 1, burst: 2 ** 40 }]),
        /burst: .*must be a 32-bit integer/,
      ],
      [
        "entry not an object",
        configuration(["Server"]),
        /limits\[0\]: Invalid value: "Server": must be an object/,
      ],
      ["limits not a list", configuration({ type: "Server" }), /limits: must be a list/],
      [
        "wrong kind",
        { ...configuration([{ type: "Server", qps: 1, burst: 1 }]), kind: "Other" },
        /no kind "Other"/,
      ],
      [
        "wrong group",
        {
          ...configuration([{ type: "Server", qps: 1, burst: 1 }]),
          apiVersion: "eventratelimit.example.com/v1alpha1",
        },
        /want apiVersion eventratelimit\.admission\.cluster\.io\/v1alpha1/,
      ],
      ["not an object", "limits", /must be an object/],
      // Accepted by upstream: a Server limit's cacheSize is ignored, and types may repeat.
      [
        "Server ignores cacheSize",
        configuration([{ type: "Server", qps: 1, burst: 1, cacheSize: -5 }]),
        undefined,
      ],
      [
        "repeated types",
        configuration([
          { type: "User", qps: 1, burst: 1 },
          { type: "User", qps: 5, burst: 5, cacheSize: 10 },
        ]),
        undefined,
      ],
    ];
    for (const [name, c, pattern] of cases) {
      const make = async () => {
        const p = await registration.factory(t.env({ configuration: c }));
        plugins.push(p);
      };
      if (pattern === undefined) await make();
      else
        await assert.rejects(make, (err: unknown) => {
          assert.ok(err instanceof EventRateLimitConfigError, `${name}: ${String(err)}`);
          assert.match(err.message, pattern, name);
          return true;
        });
    }
  });

  test("Server: one bucket for every event; the refusal is upstream's 429", async () => {
    const p = await plugin([{ type: "Server", qps: 1, burst: 3 }]);
    await send(p, event("a", "ns1"));
    await send(p, event("b", "ns2"), { user: "bob" });
    await send(p, event("c", "ns3"), { user: "carol" });
    await assert.rejects(
      send(p, event("d", "ns4")),
      is429("Too many requests: limit reached on type Server for key "),
    );
  });

  test("Namespace, User and SourceAndObject keep one bucket per key", async () => {
    const ns = await plugin([{ type: "Namespace", qps: 1, burst: 2 }]);
    assert.equal(
      await accepted(
        ns,
        many(5, (i) => event(`n${i}`, "one")),
      ),
      2,
    );
    assert.equal(
      await accepted(
        ns,
        many(5, (i) => event(`m${i}`, "two")),
      ),
      2,
    );
    await assert.rejects(
      send(ns, event("x", "one")),
      is429("Too many requests: limit reached on type Namespace for key one"),
    );

    const user = await plugin([{ type: "User", qps: 1, burst: 2 }]);
    assert.equal(
      await accepted(
        user,
        many(4, (i) => event(`u${i}`, "one")),
        { user: "alice" },
      ),
      2,
    );
    assert.equal(
      await accepted(
        user,
        many(4, (i) => event(`u${i}`, "two")),
        { user: "alice" },
      ),
      0,
    );
    assert.equal(
      await accepted(
        user,
        many(4, (i) => event(`v${i}`, "one")),
        { user: "bob" },
      ),
      2,
    );
    await assert.rejects(
      send(user, event("y", "one"), { user: "bob" }),
      is429("Too many requests: limit reached on type User for key bob"),
    );

    const source = await plugin([{ type: "SourceAndObject", qps: 1, burst: 1 }]);
    assert.equal(
      await accepted(
        source,
        many(3, (i) => event(`s${i}`, "one", "pod-a")),
      ),
      1,
    );
    assert.equal(
      await accepted(
        source,
        many(3, (i) => event(`t${i}`, "one", "pod-b")),
      ),
      1,
    );
    assert.equal(
      await accepted(
        source,
        many(3, (i) => event(`w${i}`, "one", "pod-a", "scheduler")),
      ),
      1,
    );
    const withUid = {
      ...event("z", "one", "pod-a"),
      involvedObject: { kind: "Pod", namespace: "one", name: "pod-a", uid: "u-1", apiVersion: "v1" },
    };
    assert.equal(
      await accepted(source, [withUid, withUid]),
      1,
      "the involved object's uid is part of the key",
    );
    await assert.rejects(
      send(source, event("again", "one", "pod-a")),
      is429("Too many requests: limit reached on type SourceAndObject for key kubeletnode-1Podonepod-av1"),
    );
  });

  test("an event without source or involvedObject shares the empty SourceAndObject key", async () => {
    const p = await plugin([{ type: "SourceAndObject", qps: 1, burst: 1 }]);
    const bare = (name: string): JsonObject => ({
      apiVersion: "v1",
      kind: "Event",
      metadata: { name, namespace: "default" },
    });
    const garbage: JsonObject = { ...bare("g"), source: "kubelet", involvedObject: ["Pod"] };
    await send(p, bare("a"));
    await assert.rejects(
      send(p, garbage),
      is429("Too many requests: limit reached on type SourceAndObject for key "),
    );
  });

  test("every limit takes its token; the last refusing limit is reported", async () => {
    const p = await plugin([
      { type: "Namespace", qps: 1, burst: 1 },
      { type: "Server", qps: 1, burst: 3 },
      { type: "User", qps: 1, burst: 1 },
    ]);
    await send(p, event("a", "one"));
    // Refused by Namespace and User; Server still pays a token (upstream's enforcers all run).
    await assert.rejects(
      send(p, event("b", "one")),
      is429("Too many requests: limit reached on type User for key alice"),
    );
    await assert.rejects(send(p, event("c", "one")), /type User for key alice/);
    // Server's 3 tokens are gone although only one event was admitted.
    await assert.rejects(
      send(p, event("d", "two"), { user: "bob" }),
      is429("Too many requests: limit reached on type Server for key "),
    );
  });

  test("which requests count: core Event creates and updates, dry runs too; nothing else", async () => {
    const p = await plugin([{ type: "Server", qps: 1, burst: 2 }]);
    for (let i = 0; i < 3; i++)
      await p.validate?.(
        t.attributes({
          operation: "CREATE",
          resource: "configmaps",
          object: { metadata: { name: `c${i}`, namespace: "default" } },
        }),
      );
    for (let i = 0; i < 3; i++)
      await p.validate?.(
        t.attributes({ operation: "DELETE", resource: "events", oldObject: event(`gone${i}`, "default") }),
      );
    // The events group's Events have another kind upstream (events.<domain> Event): not counted.
    const group = t.naming.group("events");
    for (let i = 0; i < 3; i++) await send(p, event(`g${i}`, "default"), { group });
    await send(p, event("first", "default"), { dryRun: true });
    await send(p, event("first", "default"), { operation: "UPDATE" });
    await assert.rejects(send(p, event("second", "default")), is429());
  });

  test("buckets refill at qps up to burst (injected clock)", () => {
    let now = 0;
    const b = new LocalBuckets(2, 3, 10, () => now);
    const take = (n: number) => Array.from({ length: n }, () => b.takeNow("k"));
    const cases: [string, number, number, boolean[]][] = [
      ["starts full at burst", 0, 4, [true, true, true, false]],
      ["half a second at 2 qps gives one token", 500, 2, [true, false]],
      ["a quarter second gives half a token: none yet", 250, 1, [false]],
      ["another quarter completes it", 250, 2, [true, false]],
      ["never more than burst", 60_000, 4, [true, true, true, false]],
    ];
    for (const [name, advance, n, want] of cases) {
      now += advance;
      assert.deepEqual(take(n), want, name);
    }
  });

  test("the LRU keeps cacheSize buckets; an evicted key starts full again", () => {
    const b = new LocalBuckets(1, 1, 2, () => 0);
    assert.equal(b.takeNow("a"), true);
    assert.equal(b.takeNow("b"), true);
    assert.equal(b.takeNow("a"), false, "a is now the most recently used");
    assert.equal(b.takeNow("c"), true, "evicts b, the least recently used");
    assert.equal(b.size, 2);
    assert.equal(b.takeNow("a"), false, "a survived");
    assert.equal(b.takeNow("b"), true, "b was forgotten: a full bucket again");
  });

  test("the configured cacheSize bounds a plugin's buckets", async () => {
    const p = await plugin([{ type: "Namespace", qps: 1, burst: 1, cacheSize: 1 }]);
    await send(p, event("a", "one"));
    await send(p, event("b", "two")); // evicts "one"
    await send(p, event("c", "one"));
    await assert.rejects(send(p, event("d", "one")), is429());
  });

  // Each Redis test skips itself when redis-server is missing (or fails under REQUIRE_SERVICES=1),
  // so that the in-process tests above still run and report.
  describe("with --redis-url", () => {
    let redis: RedisServer | undefined;
    let client: Redis | undefined;
    /** The suite's redis-server and a client of its own, started on first use. */
    async function server(): Promise<{ url: string; admin: Redis }> {
      redis ??= await startRedis();
      client ??= new Redis(redis.url);
      return { url: redis.url, admin: client };
    }
    after(async () => {
      client?.disconnect();
      await redis?.stop();
    });

    test("two replicas sharing one Redis share one budget", async (c) => {
      if (!skipUnlessRedis(c)) return;
      const { url } = await server();
      const limits = [{ type: "Namespace", qps: 1, burst: 4 }];
      const one = await plugin(limits, url);
      const two = await plugin(limits, url);
      const events = many(8, (i) => event(`r${i}`, "shared"));
      let n = 0;
      for (const [i, e] of events.entries()) n += await accepted(i % 2 === 0 ? one : two, [e]);
      assert.equal(n, 4, "burst 4 across both replicas, not 4 each");
      await assert.rejects(
        send(one, event("late", "shared")),
        is429("Too many requests: limit reached on type Namespace for key shared"),
      );
      assert.equal(await accepted(two, [event("elsewhere", "other")]), 1);
    });

    test("buckets live under the product's prefix and expire once they would be full again", async (c) => {
      if (!skipUnlessRedis(c)) return;
      const { url, admin } = await server();
      const p = await plugin([{ type: "User", qps: 2, burst: 4 }], url);
      await send(p, event("a", "ns"), { user: "ttl-user" });
      const key = `${t.naming.productName}:eventratelimit:User:ttl-user`;
      const ttl = await admin.pttl(key);
      // burst/qps = 2 s to refill, plus a second of slack.
      assert.ok(ttl > 0 && ttl <= 3000, `pttl ${ttl}`);
      assert.equal(Number(await admin.hget(key, "tokens")), 3);
    });

    test("Redis buckets refill at qps", async (c) => {
      if (!skipUnlessRedis(c)) return;
      const { url } = await server();
      const p = await plugin([{ type: "User", qps: 20, burst: 1 }], url);
      await send(p, event("a", "ns"), { user: "refill" });
      await assert.rejects(send(p, event("b", "ns"), { user: "refill" }), is429());
      // At 20 qps a token is back after 50 ms; waiting longer only bounds the test from below.
      await new Promise((r) => setTimeout(r, 120));
      await send(p, event("c", "ns"), { user: "refill" });
    });

    test("the script is loaded again after SCRIPT FLUSH", async (c) => {
      if (!skipUnlessRedis(c)) return;
      const { url, admin } = await server();
      const p = await plugin([{ type: "User", qps: 1, burst: 1 }], url);
      await admin.script("FLUSH");
      await send(p, event("a", "ns"), { user: "flushed" });
      await assert.rejects(send(p, event("b", "ns"), { user: "flushed" }), /type User for key flushed/);
      assert.equal(
        await admin.exists(`${t.naming.productName}:eventratelimit:User:flushed`),
        1,
        "decided in Redis",
      );
    });

    test("without Redis a replica limits with its own buckets and counts the fallbacks", async (c) => {
      if (!skipUnlessRedis(c)) return;
      const gone = await startRedis();
      const env = t.env({});
      const p = await plugin([{ type: "Server", qps: 1, burst: 2 }], gone.url, env);
      await gone.stop();
      assert.equal(
        await accepted(
          p,
          many(4, (i) => event(`f${i}`, "x")),
        ),
        2,
      );
      const metric = await env.metrics.getSingleMetric("eventratelimit_redis_fallback_total")?.get();
      assert.equal(metric?.values[0]?.value, 4);
    });
  });
});
