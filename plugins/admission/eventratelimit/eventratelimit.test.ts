import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { type AdmissionTest, startAdmissionTest } from "../../../gateway/admission/testing.ts";
import { type RedisServer, redisSkipReason, startRedis } from "../../../test/support/redis.ts";
import { AdmissionError, type AdmissionPlugin, type JsonObject } from "../index.ts";
import { LocalBuckets } from "./buckets.ts";
import { registration } from "./index.ts";

const event = (name: string, ns: string, involved = "pod-a", component = "kubelet"): JsonObject => ({
  apiVersion: "v1",
  kind: "Event",
  metadata: { name, namespace: ns },
  involvedObject: { kind: "Pod", namespace: ns, name: involved, apiVersion: "v1" },
  source: { component, host: "node-1" },
  reason: "Started",
  message: "started",
});

describe("EventRateLimit", () => {
  let t: AdmissionTest;
  const plugins: AdmissionPlugin[] = [];
  before(async () => {
    t = await startAdmissionTest();
  });
  after(async () => {
    for (const p of plugins) await p.close?.();
    await t.stop();
  });

  const configuration = (limits: JsonObject[]) => ({
    apiVersion: `${t.naming.group("eventratelimit.admission")}/v1alpha1`,
    kind: "Configuration",
    limits,
  });
  async function plugin(limits: JsonObject[], redisUrl?: string): Promise<AdmissionPlugin> {
    const p = await registration.factory(
      t.env({ configuration: configuration(limits), options: redisUrl ? { redisUrl } : {} }),
    );
    plugins.push(p);
    return p;
  }
  const send = (p: AdmissionPlugin, object: JsonObject, user = "alice") =>
    p.validate?.(
      t.attributes({
        operation: "CREATE",
        resource: "events",
        object,
        user: { username: user, uid: "", groups: [], extra: {} },
      }),
    ) as Promise<void>;
  async function accepted(p: AdmissionPlugin, objects: JsonObject[], user?: string): Promise<number> {
    let n = 0;
    for (const o of objects) {
      try {
        await send(p, o, user);
        n++;
      } catch (err) {
        assert.ok(err instanceof AdmissionError);
        assert.equal(err.code, 429);
      }
    }
    return n;
  }
  const burst = (count: number, make: (i: number) => JsonObject) =>
    Array.from({ length: count }, (_, i) => make(i));

  test("bad configurations fail at start with upstream's field errors", async () => {
    const cases: [unknown, RegExp][] = [
      [undefined, /needs a Configuration/],
      [configuration([]), /limits: Invalid value: null: must not be empty/],
      [
        configuration([{ type: "Cluster", qps: 1, burst: 1 }]),
        /limits\[0\]\.type: Unsupported value: "Cluster"/,
      ],
      [
        configuration([{ type: "Server", qps: 0, burst: 1 }]),
        /limits\[0\]\.qps: Invalid value: 0: must be positive/,
      ],
      [
        configuration([{ type: "Namespace", qps: 1, burst: -2 }]),
        /limits\[0\]\.burst: Invalid value: -2: must be positive/,
      ],
      [
        configuration([{ type: "User", qps: 1, burst: 1, cacheSize: -1 }]),
        /cacheSize: Invalid value: -1: must not be negative/,
      ],
      [{ ...configuration([{ type: "Server", qps: 1, burst: 1 }]), kind: "Other" }, /unsupported kind Other/],
      ["limits", /must be an object/],
    ];
    for (const [c, pattern] of cases)
      await assert.rejects(
        async () => registration.factory(t.env({ configuration: c })),
        pattern,
        String(pattern),
      );
  });

  test("Server: one bucket for every event; the refusal is a 429 naming the limit", async () => {
    const p = await plugin([{ type: "Server", qps: 1, burst: 3 }]);
    await send(p, event("a", "ns1"));
    await send(p, event("b", "ns2"));
    await send(p, event("c", "ns3"));
    await assert.rejects(send(p, event("d", "ns4")), (err: unknown) => {
      assert.ok(err instanceof AdmissionError);
      assert.equal(err.code, 429);
      assert.equal(err.reason, "TooManyRequests");
      assert.equal(err.message, "Too many requests: limit reached on type Server for key ");
      return true;
    });
  });

  test("Namespace, User and SourceAndObject keep a bucket per key", async () => {
    const ns = await plugin([{ type: "Namespace", qps: 1, burst: 2 }]);
    assert.equal(
      await accepted(
        ns,
        burst(5, (i) => event(`n${i}`, "one")),
      ),
      2,
    );
    assert.equal(
      await accepted(
        ns,
        burst(5, (i) => event(`m${i}`, "two")),
      ),
      2,
    );
    await assert.rejects(send(ns, event("x", "one")), /limit reached on type Namespace for key one/);

    const user = await plugin([{ type: "User", qps: 1, burst: 2 }]);
    assert.equal(
      await accepted(
        user,
        burst(4, (i) => event(`u${i}`, "one")),
        "alice",
      ),
      2,
    );
    assert.equal(
      await accepted(
        user,
        burst(4, (i) => event(`v${i}`, "one")),
        "bob",
      ),
      2,
    );

    const source = await plugin([{ type: "SourceAndObject", qps: 1, burst: 1 }]);
    assert.equal(
      await accepted(
        source,
        burst(3, (i) => event(`s${i}`, "one", "pod-a")),
      ),
      1,
    );
    assert.equal(
      await accepted(
        source,
        burst(3, (i) => event(`t${i}`, "one", "pod-b")),
      ),
      1,
    );
    assert.equal(
      await accepted(
        source,
        burst(3, (i) => event(`w${i}`, "one", "pod-a", "scheduler")),
      ),
      1,
    );
  });

  test("only core Events on create and update are counted", async () => {
    const p = await plugin([{ type: "Server", qps: 1, burst: 1 }]);
    for (let i = 0; i < 3; i++)
      await p.validate?.(
        t.attributes({
          operation: "CREATE",
          resource: "configmaps",
          object: { metadata: { name: `c${i}`, namespace: "default" } },
        }),
      );
    await p.validate?.(
      t.attributes({ operation: "DELETE", resource: "events", oldObject: event("gone", "default") }),
    );
    await send(p, event("first", "default"));
    await assert.rejects(send(p, event("second", "default")), /limit reached/);
  });

  test("buckets refill at qps up to burst, and the LRU holds at most cacheSize keys", () => {
    let now = 0;
    const b = new LocalBuckets(2, 3, 2, () => now);
    assert.deepEqual(
      [1, 2, 3, 4].map(() => b.takeNow("k")),
      [true, true, true, false],
    );
    now += 500; // one token at 2 per second
    assert.deepEqual([b.takeNow("k"), b.takeNow("k")], [true, false]);
    now += 60_000; // never more than burst
    assert.deepEqual(
      [1, 2, 3, 4].map(() => b.takeNow("k")),
      [true, true, true, false],
    );
    b.takeNow("other");
    b.takeNow("third"); // evicts "k", the least recently used
    assert.equal(b.size, 2);
    assert.equal(b.takeNow("k"), true, "an evicted key starts with a full bucket");
  });

  describe("with --redis-url", { skip: redisSkipReason() }, () => {
    let redis: RedisServer;
    before(async () => {
      redis = await startRedis();
    });
    after(async () => {
      await redis?.stop();
    });

    test("two replicas sharing one Redis share one budget", async () => {
      const limits = [{ type: "Namespace", qps: 1, burst: 4 }];
      const one = await plugin(limits, redis.url);
      const two = await plugin(limits, redis.url);
      const events = burst(8, (i) => event(`r${i}`, "shared"));
      let n = 0;
      for (const [i, e] of events.entries()) n += await accepted(i % 2 === 0 ? one : two, [e]);
      assert.equal(n, 4, "burst 4 across both replicas, not 4 each");
      await assert.rejects(
        send(one, event("late", "shared")),
        /limit reached on type Namespace for key shared/,
      );
      assert.equal(await accepted(two, [event("elsewhere", "other")]), 1);
    });

    test("without Redis a replica falls back to its own buckets", async () => {
      const stopped = await startRedis();
      const p = await plugin([{ type: "Server", qps: 1, burst: 2 }], stopped.url);
      await stopped.stop();
      assert.equal(
        await accepted(
          p,
          burst(4, (i) => event(`f${i}`, "x")),
        ),
        2,
      );
    });
  });
});
