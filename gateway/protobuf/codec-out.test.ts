// The answer-side encoders: a list assembled from its items' cached messages is the same bytes as
// the whole list encoded at once (in either field order), and a watch event is upstream's
// WatchEvent as protobufjs writes it from the IDL.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { naming } from "../../backends/naming/index.ts";
import {
  encodeProtobufList,
  encodeProtobufMessage,
  encodeProtobufObject,
  encodeProtobufWatchEvent,
} from "./codec.ts";
import { loadIdl, skipWithoutIdl } from "./upstream-idl.ts";

const meta = `${naming("kubernetes").group("meta")}`;

function hex(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString("hex");
}

describe("lists from their items' messages", () => {
  const configMap = (name: string, data: Record<string, string>) => ({
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name, namespace: "default", resourceVersion: "7", labels: { b: "1", a: "2" } },
    data,
  });
  const cases: [
    string,
    { apiVersion: string; kind: string; metadata: Record<string, unknown> },
    Record<string, unknown>[],
  ][] = [
    [
      "a ConfigMapList with continue and remainingItemCount",
      {
        apiVersion: "v1",
        kind: "ConfigMapList",
        metadata: { resourceVersion: "9", continue: "abc", remainingItemCount: 3 },
      },
      [configMap("x", { k: "v" }), configMap("y", { big: "z".repeat(300) })],
    ],
    ["an empty list", { apiVersion: "v1", kind: "ConfigMapList", metadata: { resourceVersion: "9" } }, []],
    [
      "PartialObjectMetadataList v1",
      { apiVersion: `${meta}/v1`, kind: "PartialObjectMetadataList", metadata: { resourceVersion: "9" } },
      [{ apiVersion: `${meta}/v1`, kind: "PartialObjectMetadata", metadata: { name: "x" } }],
    ],
    [
      "PartialObjectMetadataList v1beta1 (items numbered before metadata)",
      {
        apiVersion: `${meta}/v1beta1`,
        kind: "PartialObjectMetadataList",
        metadata: { resourceVersion: "9" },
      },
      [{ apiVersion: `${meta}/v1`, kind: "PartialObjectMetadata", metadata: { name: "x" } }],
    ],
  ];
  for (const [name, list, items] of cases) {
    it(name, () => {
      const whole = encodeProtobufObject({ ...list, items });
      const assembled = encodeProtobufList(list, items.map(encodeProtobufMessage));
      assert.equal(hex(assembled), hex(whole));
    });
  }
});

describe("watch events", { skip: skipWithoutIdl }, () => {
  const root = loadIdl();
  const event = root.lookupType("k8s.io.apimachinery.pkg.apis.meta.v1.WatchEvent");
  it("framed: the length, then the event as protobufjs writes it; unframed: the event alone", () => {
    const object = encodeProtobufObject({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "x" } });
    const expected = Buffer.from(
      event.encode(event.fromObject({ type: "MODIFIED", object: { raw: object } })).finish(),
    );
    const framed = encodeProtobufWatchEvent("MODIFIED", object, true);
    assert.equal(framed.readUInt32BE(0), expected.length);
    assert.equal(hex(framed.subarray(4)), hex(expected));
    assert.equal(hex(encodeProtobufWatchEvent("MODIFIED", object, false)), hex(expected));
  });
});
