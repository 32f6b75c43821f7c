import assert from "node:assert/strict";
import { afterEach, beforeEach, describe, it } from "node:test";
import { Cacher } from "../cacher/index.ts";
import { LARGE_OBJECT_CHARS } from "../common/turn.ts";
import { MemoryStorage } from "../memory/index.ts";
import { type ResourceSchema, resourcePrefix } from "../schema/index.ts";
import { RegistryError } from "./errors.ts";
import { Registry } from "./registry.ts";
import type { JsonObject } from "./strategy.ts";

const schema: ResourceSchema = {
  group: "",
  versions: [{ name: "v1", served: true, storage: true }],
  plural: "things",
  singular: "thing",
  kind: "Thing",
  listKind: "ThingList",
  shortNames: [],
  categories: [],
  namespaced: true,
  verbs: ["get", "list", "watch", "create", "update", "patch", "delete", "deletecollection"],
  subresources: [],
  allowCreateOnUpdate: false,
};

let storage: MemoryStorage;
let cacher: Cacher;
let registry: Registry;

beforeEach(async () => {
  storage = new MemoryStorage();
  cacher = new Cacher({ storage, prefix: resourcePrefix(schema) });
  await cacher.start();
  registry = new Registry({ schema, strategy: { tracksGeneration: true }, storage, cacher });
});
afterEach(async () => {
  await cacher.stop();
  await storage.close();
});

const thing = (name: string, extra: JsonObject = {}): JsonObject => ({
  apiVersion: "v1",
  kind: "Thing",
  metadata: { name },
  spec: { n: 1 },
  ...extra,
});

async function rejectsWith(p: Promise<unknown>, reason: string, message?: RegExp) {
  await assert.rejects(p, (e: unknown) => {
    assert.ok(e instanceof RegistryError, String(e));
    assert.equal(e.reason, reason);
    if (message) assert.match(e.message, message);
    return true;
  });
}

/** Event-loop turns (macrotasks) that pass while `run` is pending. */
async function turnsDuring(run: () => Promise<unknown>): Promise<number> {
  let turns = 0;
  let done = false;
  const tick = () => {
    if (done) return;
    turns++;
    setImmediate(tick);
  };
  setImmediate(tick);
  await run();
  done = true;
  return turns;
}

describe("registry: large writes", () => {
  it("give the event loop a turn between steps of a large write, and not of a small one", async () => {
    const small = { create: 0, update: 0 };
    small.create = await turnsDuring(() => registry.create("ns", thing("small")));
    small.update = await turnsDuring(() => registry.update("ns", "small", async (o) => o as JsonObject));
    const large = {
      create: await turnsDuring(() => registry.create("ns", thing("large"), { large: true })),
      // The stored object is small: only the option says this write is large.
      update: await turnsDuring(() =>
        registry.update("ns", "large", async (o) => o as JsonObject, { large: true }),
      ),
    };
    // Create: after tracking, after validation, before encoding; update: also after the transform.
    assert.ok(large.create >= small.create + 3, `${JSON.stringify({ small, large })}`);
    assert.ok(large.update >= small.update + 4, `${JSON.stringify({ small, large })}`);
    // A stored object past LARGE_OBJECT_CHARS makes any update of it large.
    await registry.create("ns", thing("stored", { spec: { blob: "x".repeat(LARGE_OBJECT_CHARS) } }));
    const stored = await turnsDuring(() => registry.update("ns", "stored", async (o) => o as JsonObject));
    assert.ok(stored >= small.update + 4, `${stored} vs ${small.update}`);
  });
});

describe("registry", () => {
  it("creates with uid, timestamp, generation and namespace, and reads it back", async () => {
    const { object } = await registry.create("ns", thing("a"));
    const m = object.metadata as Record<string, unknown>;
    assert.match(String(m.uid), /^[0-9a-f-]{36}$/);
    assert.match(String(m.creationTimestamp), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    assert.equal(m.generation, 1);
    assert.equal(m.namespace, "ns");
    const got = JSON.parse((await registry.get("ns", "a")).json);
    assert.equal(got.metadata.resourceVersion, m.resourceVersion);
    await rejectsWith(registry.create("ns", thing("a")), "AlreadyExists");
    await rejectsWith(
      registry.create("other", thing("b", { metadata: { name: "b", namespace: "ns" } })),
      "BadRequest",
      /does not match the namespace/,
    );
    await rejectsWith(registry.create("ns", thing("Bad_Name")), "Invalid");
    await rejectsWith(registry.create("ns", { metadata: {} }), "Invalid");
    await rejectsWith(
      registry.create("ns", thing("c", { metadata: { name: "c", resourceVersion: "5" } })),
      "BadRequest",
      /should not be set/,
    );
  });

  it("generates names with a five-character suffix", async () => {
    const { object } = await registry.create("ns", { metadata: { generateName: "web-" } });
    assert.match(String((object.metadata as JsonObject).name), /^web-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
  });

  it("updates with preconditions, keeps server fields and bumps generation on spec changes", async () => {
    const { object: a } = await registry.create("ns", thing("a"));
    const rv = (a.metadata as JsonObject).resourceVersion;
    const { object: b } = await registry
      .update("ns", "a", () =>
        thing("a", { metadata: { name: "a", resourceVersion: rv, uid: "ignored-not", labels: { x: "1" } } }),
      )
      .catch(() => ({ object: {} as JsonObject }));
    assert.deepEqual(b, {}, "a foreign uid is a conflict");
    const { object: c } = await registry.update("ns", "a", () =>
      thing("a", { metadata: { name: "a", resourceVersion: rv, labels: { x: "1" } } }),
    );
    const cm = c.metadata as JsonObject;
    assert.equal(cm.uid, (a.metadata as JsonObject).uid);
    assert.equal(cm.generation, 1, "metadata changes keep the generation");
    await rejectsWith(
      registry.update("ns", "a", () => thing("a", { metadata: { name: "a", resourceVersion: rv } })),
      "Conflict",
      /the object has been modified/,
    );
    const { object: d } = await registry.update("ns", "a", (cur) => ({
      ...(cur as JsonObject),
      spec: { n: 2 },
    }));
    assert.equal((d.metadata as JsonObject).generation, 2);
    await rejectsWith(
      registry.update("ns", "zzz", () => thing("zzz")),
      "NotFound",
    );
    await rejectsWith(
      registry.update("ns", "a", () => thing("b")),
      "BadRequest",
      /does not match the name on the URL/,
    );
  });

  it("does not write when nothing changed", async () => {
    const { object } = await registry.create("ns", thing("a"));
    const before = await storage.currentRevision();
    const { object: same } = await registry.update("ns", "a", (cur) => cur as JsonObject);
    assert.equal(
      (same.metadata as JsonObject).resourceVersion,
      (object.metadata as JsonObject).resourceVersion,
    );
    assert.equal(await storage.currentRevision(), before);
  });

  it("loses no update under concurrent transforms", async () => {
    await registry.create("ns", thing("a", { spec: { n: 0 } }));
    await Promise.all(
      Array.from({ length: 25 }, () =>
        registry.update("ns", "a", (cur) => {
          const o = cur as JsonObject;
          (o.spec as { n: number }).n++;
          return o;
        }),
      ),
    );
    assert.equal(JSON.parse((await registry.get("ns", "a")).json).spec.n, 25);
  });

  it("holds objects with finalizers until the last one goes, then frees the name", async () => {
    await registry.create("ns", thing("a", { metadata: { name: "a", finalizers: ["x/y"] } }));
    const first = await registry.delete("ns", "a");
    assert.equal(first.removed, false);
    assert.ok((first.object.metadata as JsonObject).deletionTimestamp);
    const again = await registry.delete("ns", "a");
    assert.equal(
      (again.object.metadata as JsonObject).deletionTimestamp,
      (first.object.metadata as JsonObject).deletionTimestamp,
    );
    await registry.update("ns", "a", (cur) => {
      const o = cur as JsonObject;
      (o.metadata as JsonObject).finalizers = [];
      return o;
    });
    await rejectsWith(registry.get("ns", "a"), "NotFound");
    await registry.create("ns", thing("a"));
  });

  it("checks delete preconditions", async () => {
    const { object } = await registry.create("ns", thing("a"));
    await rejectsWith(
      registry.delete("ns", "a", { preconditions: { uid: "nope" } }),
      "Conflict",
      /Precondition failed: UID in precondition: nope/,
    );
    await rejectsWith(
      registry.delete("ns", "a", { preconditions: { resourceVersion: "1000" } }),
      "Conflict",
      /ResourceVersion in precondition: 1000/,
    );
    const { removed } = await registry.delete("ns", "a", {
      preconditions: { uid: String((object.metadata as JsonObject).uid) },
    });
    assert.equal(removed, true);
    await rejectsWith(registry.delete("ns", "a"), "NotFound");
  });

  it("persists nothing on dry runs", async () => {
    const rev = await storage.currentRevision();
    const { object } = await registry.create("ns", thing("a"), { dryRun: true });
    assert.ok((object.metadata as JsonObject).uid);
    assert.equal(await storage.currentRevision(), rev);
    await registry.create("ns", thing("b"));
    const rev2 = await storage.currentRevision();
    await registry.update("ns", "b", (c) => ({ ...(c as JsonObject), spec: { n: 9 } }), { dryRun: true });
    await registry.delete("ns", "b", { dryRun: true });
    assert.equal(await storage.currentRevision(), rev2);
    assert.equal(JSON.parse((await registry.get("ns", "b")).json).spec.n, 1);
  });
});
