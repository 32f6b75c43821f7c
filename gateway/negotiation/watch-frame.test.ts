import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { load } from "js-yaml";
import { naming } from "../../backends/naming/index.ts";
import { negotiateOutput, type OutputChoice } from "./media-type.ts";
import {
  compareYamlKeys,
  createWatchFramer,
  encodeObject,
  encodeWatchFrame,
  toYaml,
  type WatchFrameInput,
} from "./watch-frame.ts";

const k8s = naming("kubernetes");
const context = { naming: k8s };
const KUBECTL_GET =
  "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json";
const watchOf = (accept: string, extra: { includeObject?: string } = {}): OutputChoice =>
  negotiateOutput(accept, {
    naming: k8s,
    tableSupported: true,
    protobufSupported: true,
    stream: true,
    ...extra,
  });

const podJson = (name: string, rv: string) =>
  JSON.stringify({
    kind: "Pod",
    apiVersion: "v1",
    metadata: { name, namespace: "default", resourceVersion: rv, creationTimestamp: "2024-05-01T10:00:00Z" },
    spec: { containers: [{ name: "c", image: "i" }] },
  });

const added: WatchFrameInput = { type: "ADDED", objectJson: podJson("a", "5") };
const modified: WatchFrameInput = { type: "MODIFIED", objectJson: podJson("a", "6") };
const bookmark: WatchFrameInput = {
  type: "BOOKMARK",
  objectJson: '{"kind":"Pod","apiVersion":"v1","metadata":{"resourceVersion":"9","creationTimestamp":null}}',
};
const status =
  '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"too old","reason":"Expired","code":410}';
const error: WatchFrameInput = { type: "ERROR", objectJson: status };

describe("JSON watch frames", () => {
  const output = watchOf("application/json");
  it("one document per line, built from the stored JSON as it is", () => {
    assert.equal(encodeWatchFrame(added, output, context), `{"type":"ADDED","object":${added.objectJson}}\n`);
    assert.equal(encodeWatchFrame(error, output, context), `{"type":"ERROR","object":${status}}\n`);
  });
  it("a trailing newline in the stored JSON is dropped", () => {
    assert.equal(
      encodeWatchFrame({ type: "DELETED", objectJson: '{"a":1}\n' }, output, context),
      '{"type":"DELETED","object":{"a":1}}\n',
    );
  });
  it("every line parses", () => {
    const framer = createWatchFramer(output, context);
    const stream = [added, modified, bookmark].map((e) => framer.frame(e)).join("");
    const lines = stream.split("\n");
    assert.equal(lines.pop(), "");
    assert.deepEqual(
      lines.map((l) => (JSON.parse(l) as { type: string }).type),
      ["ADDED", "MODIFIED", "BOOKMARK"],
    );
  });
});

interface TableFrame {
  type: string;
  object: {
    kind: string;
    apiVersion: string;
    metadata: unknown;
    columnDefinitions: { name: string }[] | null;
    rows: { cells: unknown[]; object: { kind: string } }[];
  };
}

describe("Table watch frames (kubectl get -w)", () => {
  const output = watchOf(KUBECTL_GET);
  it("first event carries columnDefinitions, later ones null", () => {
    const framer = createWatchFramer(output, context);
    const frames = [added, modified, bookmark].map((e) => JSON.parse(framer.frame(e)) as TableFrame);
    assert.equal(frames[0]!.type, "ADDED");
    assert.equal(frames[0]!.object.kind, "Table");
    assert.equal(frames[0]!.object.apiVersion, "meta.k8s.io/v1");
    assert.deepEqual(frames[0]!.object.metadata, { resourceVersion: "5" });
    assert.deepEqual(
      frames[0]!.object.columnDefinitions?.map((d) => d.name),
      ["Name", "Created At"],
    );
    assert.deepEqual(frames[0]!.object.rows[0]!.cells, ["a", "2024-05-01T10:00:00Z"]);
    assert.equal(frames[0]!.object.rows[0]!.object.kind, "PartialObjectMetadata");
    assert.equal(frames[1]!.object.columnDefinitions, null);
    assert.deepEqual(frames[1]!.object.metadata, { resourceVersion: "6" });
    assert.equal(frames[2]!.type, "BOOKMARK");
    assert.equal(frames[2]!.object.columnDefinitions, null);
    assert.deepEqual(frames[2]!.object.metadata, { resourceVersion: "9" });
    assert.deepEqual(frames[2]!.object.rows[0]!.cells, ["", "0001-01-01T00:00:00Z"]);
  });
  it("an ERROR passes its Status through and still uses up the headers", () => {
    const framer = createWatchFramer(output, context);
    assert.equal(framer.frame(error), `{"type":"ERROR","object":${status}}\n`);
    const next = JSON.parse(framer.frame(added)) as { object: { columnDefinitions: unknown } };
    assert.equal(next.object.columnDefinitions, null);
  });
  it("includeObject=Object and a kind's columns", () => {
    const out = watchOf(KUBECTL_GET, { includeObject: "Object" });
    const frame = JSON.parse(
      encodeWatchFrame(added, out, {
        naming: k8s,
        columns: [{ name: "Ready", type: "string", description: "d", priority: 0, cell: () => "1/1" }],
      }),
    ) as { object: { rows: { cells: unknown[]; object: unknown }[] } };
    assert.deepEqual(frame.object.rows[0]!.cells, ["a", "1/1"]);
    assert.deepEqual(frame.object.rows[0]!.object, JSON.parse(added.objectJson));
  });
});

describe("PartialObjectMetadata watch frames", () => {
  it("objects reduced to metadata", () => {
    const output = watchOf("application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1");
    const frame = JSON.parse(encodeWatchFrame(added, output, context)) as { object: Record<string, unknown> };
    assert.deepEqual(frame.object, {
      kind: "PartialObjectMetadata",
      apiVersion: "meta.k8s.io/v1",
      metadata: (JSON.parse(added.objectJson) as { metadata: unknown }).metadata,
    });
    assert.equal(encodeWatchFrame(error, output, context), `{"type":"ERROR","object":${status}}\n`);
  });
  it("asking for the List kind on a watch sends the objects unchanged", () => {
    const output = watchOf("application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1");
    assert.equal(encodeWatchFrame(added, output, context), `{"type":"ADDED","object":${added.objectJson}}\n`);
  });
});

describe("YAML watch frames", () => {
  const output: OutputChoice = {
    kind: "yaml",
    encoding: "yaml",
    contentType: "application/yaml",
    stream: true,
  };
  it("each document preceded by ---, keys sorted", () => {
    const frame = encodeWatchFrame(
      { type: "ADDED", objectJson: '{"kind":"X","apiVersion":"v1"}' },
      output,
      context,
    );
    assert.equal(frame, "---\nobject:\n  apiVersion: v1\n  kind: X\ntype: ADDED\n");
  });
});

describe("encodeObject", () => {
  const object = { kind: "ConfigMap", apiVersion: "v1", metadata: { name: "a" }, data: { b: "<&>" } };
  it("JSON: compact with a trailing newline", () => {
    assert.equal(
      encodeObject(object, { kind: "json", encoding: "json", contentType: "application/json" }),
      '{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a"},"data":{"b":"<&>"}}\n',
    );
  });
  it("pretty JSON: two-space indent, no trailing newline", () => {
    assert.equal(
      encodeObject(
        { a: [1], b: {} },
        { kind: "json", encoding: "json", contentType: "application/json", pretty: true },
      ),
      '{\n  "a": [\n    1\n  ],\n  "b": {}\n}',
    );
  });
  it("YAML as upstream renders it", () => {
    const pod = {
      kind: "Pod",
      apiVersion: "v1",
      metadata: {
        name: "web",
        resourceVersion: "123",
        creationTimestamp: "2024-05-01T10:00:00Z",
        labels: { "app.kubernetes.io/name": "web", app: "web", tier10: "a", tier2: "b" },
      },
      spec: {
        containers: [
          {
            name: "c",
            image: "nginx",
            args: ["yes", "on", "1", "multi\nline"],
            ports: [{ containerPort: 80 }],
          },
        ],
        enabled: true,
        empty: {},
        none: [],
        nothing: null,
      },
    };
    const text = encodeObject(pod, { kind: "yaml", encoding: "yaml", contentType: "application/yaml" });
    assert.equal(
      text,
      `apiVersion: v1
kind: Pod
metadata:
  creationTimestamp: "2024-05-01T10:00:00Z"
  labels:
    app: web
    app.kubernetes.io/name: web
    tier2: b
    tier10: a
  name: web
  resourceVersion: "123"
spec:
  containers:
  - args:
    - "yes"
    - "on"
    - "1"
    - |-
      multi
      line
    image: nginx
    name: c
    ports:
    - containerPort: 80
  empty: {}
  enabled: true
  none: []
  nothing: null
`,
    );
    assert.deepEqual(load(text), pod);
  });
  it("protobuf is not encoded here", () => {
    assert.throws(() =>
      encodeObject(object, {
        kind: "protobuf",
        encoding: "protobuf",
        contentType: "application/vnd.kubernetes.protobuf",
      }),
    );
  });
});

describe("compareYamlKeys", () => {
  const ordered: [string, string][] = [
    ["a", "b"],
    ["A", "a"],
    ["a", "aa"],
    ["a2", "a10"],
    ["a-b", "ab"],
    ["a_b", "aB"],
    ["a.b", "a/b"],
    ["x1y", "x01y"],
    ["v10", "v100"],
    ["1", "a"],
  ];
  for (const [first, second] of ordered) {
    it(`${first} < ${second}`, () => {
      assert.ok(compareYamlKeys(first, second) < 0);
      assert.ok(compareYamlKeys(second, first) > 0);
    });
  }
  it("equal", () => assert.equal(compareYamlKeys("same", "same"), 0));
  it("toYaml sorts nested keys", () => {
    assert.equal(toYaml({ b: { d: 1, c: 2 }, a: 0 }), "a: 0\nb:\n  c: 2\n  d: 1\n");
  });
});
