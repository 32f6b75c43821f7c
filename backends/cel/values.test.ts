import assert from "node:assert/strict";
import { it } from "node:test";
import { Duration } from "@marcbachmann/cel-js/evaluator";
import { CelRuntimeError } from "./errors.ts";
import { CelObject, type CelSchema, declTypeFromSchema } from "./schema.ts";
import { celValueFromJson, parseGoDuration } from "./values.ts";

const schema: CelSchema = {
  type: "object",
  properties: {
    count: { type: "integer" },
    ratio: { type: "number" },
    on: { type: "boolean" },
    name: { type: "string" },
    "my-key": { type: "string" },
    namespace: { type: "string" },
    "bad key": { type: "string" },
    data: { type: "string", format: "byte" },
    day: { type: "string", format: "date" },
    at: { type: "string", format: "date-time" },
    ttl: { type: "string", format: "duration" },
    port: { "x-kubernetes-int-or-string": true },
    tags: { type: "array", items: { type: "string" } },
    labels: { type: "object", additionalProperties: { type: "string" } },
    free: {
      type: "object",
      "x-kubernetes-preserve-unknown-fields": true,
      properties: { known: { type: "integer" } },
    },
    untyped: { type: "array", items: {} },
  },
};

function asObject(v: unknown): CelObject {
  assert.ok(v instanceof CelObject);
  return v;
}

it("maps each schema type to its CEL value", () => {
  const v = asObject(
    celValueFromJson(
      {
        count: 3,
        ratio: 2,
        on: true,
        name: "n",
        "my-key": "k",
        namespace: "ns",
        "bad key": "hidden",
        data: "aGVsbG8=",
        day: "2024-02-29",
        at: "2024-01-02T03:04:05.678+01:00",
        ttl: "1h30m",
        port: 8080,
        tags: ["a", "b"],
        labels: JSON.parse('{"app.example.com/name": "x", "__proto__": "y"}'),
        free: { known: 1, unknown: 2 },
        untyped: [1],
        extra: "pruned",
      },
      schema,
    ),
  );
  assert.equal(v.get("count"), 3n);
  assert.equal(v.get("ratio"), 2);
  assert.equal(typeof v.get("ratio"), "number");
  assert.equal(v.get("on"), true);
  assert.equal(v.get("my__dash__key"), "k");
  assert.equal(v.get("__namespace__"), "ns");
  assert.deepEqual([...(v.get("data") as Uint8Array)], [...Buffer.from("hello")]);
  assert.equal((v.get("day") as Date).toISOString(), "2024-02-29T00:00:00.000Z");
  assert.equal((v.get("at") as Date).toISOString(), "2024-01-02T02:04:05.678Z");
  const ttl = v.get("ttl") as Duration;
  assert.ok(ttl instanceof Duration);
  assert.equal(ttl.seconds, 5400n);
  assert.equal(v.get("port"), 8080n);
  assert.deepEqual(v.get("tags"), ["a", "b"]);
  const labels = v.get("labels") as Map<string, unknown>;
  assert.ok(labels instanceof Map && !(labels instanceof CelObject));
  assert.equal(labels.get("app.example.com/name"), "x", "map keys are not escaped");
  assert.equal(labels.get("__proto__"), "y");
  const free = asObject(v.get("free"));
  assert.deepEqual([...free.keys()], ["known"], "unknown fields are not exposed");
  for (const hidden of ["bad key", "bad__key", "untyped", "extra"])
    assert.equal(v.has(hidden), false, hidden);
});

it("int-or-string keeps strings; null fields are absent", () => {
  const v = asObject(celValueFromJson({ port: "http", name: null }, schema));
  assert.equal(v.get("port"), "http");
  assert.equal(v.has("name"), false);
});

it("integers are int64: the extremes convert, anything beyond is an overflow error", () => {
  const ints: CelSchema = { type: "integer" };
  assert.equal(celValueFromJson(2 ** 53, ints), 9007199254740992n);
  assert.equal(celValueFromJson(-(2 ** 63), ints), -9223372036854775808n);
  assert.equal(celValueFromJson(9223372036854775807n, ints), 9223372036854775807n);
  assert.throws(() => celValueFromJson(2 ** 63, ints), CelRuntimeError);
  assert.throws(() => celValueFromJson(9223372036854775808n, ints), /integer overflow/);
  assert.throws(() => celValueFromJson(1e300, ints), /does not fit int64/);
  // Untyped values too large for int64 stay doubles.
  assert.equal(celValueFromJson(1e300), 1e300);
  assert.equal(celValueFromJson(7), 7n);
  assert.equal(celValueFromJson(7.5), 7.5);
});

it("malformed formatted strings stay strings, so evaluation reports the type mismatch", () => {
  const v = asObject(
    celValueFromJson({ data: "not base64!", at: "yesterday", day: "2023-02-29", ttl: "5 min" }, schema),
  );
  assert.equal(v.get("data"), "not base64!");
  assert.equal(v.get("at"), "yesterday");
  assert.equal(v.get("day"), "2023-02-29");
  assert.equal(v.get("ttl"), "5 min");
});

it("resource roots expose apiVersion, kind and only metadata.name and generateName", () => {
  const root: CelSchema = {
    type: "object",
    properties: { metadata: { type: "object" }, spec: { type: "object" } },
  };
  const v = asObject(
    celValueFromJson(
      {
        apiVersion: "g/v1",
        kind: "K",
        metadata: { name: "n", generateName: "g", namespace: "ns", labels: {} },
        spec: {},
      },
      root,
      { isResourceRoot: true },
    ),
  );
  assert.equal(v.get("apiVersion"), "g/v1");
  assert.equal(v.get("kind"), "K");
  assert.deepEqual(
    [...asObject(v.get("metadata")).entries()],
    [
      ["name", "n"],
      ["generateName", "g"],
    ],
  );
  assert.equal(declTypeFromSchema(root, false)?.kind, "object");
  const plain = asObject(celValueFromJson({ apiVersion: "g/v1", metadata: { name: "n" } }, root));
  assert.equal(plain.has("apiVersion"), false);
  assert.equal(asObject(plain.get("metadata")).size, 0);
});

it("schemas CEL cannot see have no type", () => {
  assert.equal(declTypeFromSchema({ type: "array", items: {} }), undefined);
  assert.equal(declTypeFromSchema({ type: "object", additionalProperties: {} }), undefined);
  assert.equal(declTypeFromSchema({}), undefined);
  assert.equal(declTypeFromSchema({ type: "object" })?.kind, "object");
});

it("Go durations parse like time.ParseDuration", () => {
  const secondsOf = (s: string) => {
    const d = parseGoDuration(s);
    return d === undefined ? undefined : [d.seconds, d.nanos];
  };
  assert.deepEqual(secondsOf("0"), [0n, 0]);
  assert.deepEqual(secondsOf("1.5s"), [1n, 500_000_000]);
  assert.deepEqual(secondsOf("2h45m"), [9900n, 0]);
  assert.deepEqual(secondsOf("-1m"), [-60n, -0]);
  assert.deepEqual(secondsOf("300ms"), [0n, 300_000_000]);
  for (const bad of ["", "1", "h", "1d", "1.5.5s", "--1s"])
    assert.equal(parseGoDuration(bad), undefined, bad);
});
