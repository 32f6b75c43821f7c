import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { naming } from "../naming/naming.ts";
import { type FieldError, formatFieldError } from "../registry/field-error.ts";
import type { JsonObject } from "../registry/strategy.ts";
import { eventKind } from "./event.ts";

const text = (errs: FieldError[] | undefined) => (errs ?? []).map(formatFieldError);
const n = naming("cluster");
const kind = eventKind(n);
const { strategy } = kind;

const legacy = (namespace: string, involvedNamespace?: string): JsonObject => ({
  metadata: { name: "pod-a.17c1", namespace },
  involvedObject: {
    kind: "Pod",
    name: "pod-a",
    ...(involvedNamespace !== undefined ? { namespace: involvedNamespace } : {}),
  },
  reason: "Started",
  message: "Started container",
  type: "Normal",
});

describe("Event (core/v1)", () => {
  it("schema", () => {
    assert.deepEqual(kind.schema.shortNames, ["ev"]);
    assert.equal(kind.schema.verbs.length, 8);
    assert.equal(kind.schema.allowCreateOnUpdate, true);
    assert.equal(strategy.nameRule, "path-segment");
  });

  const cases: [string, JsonObject, string[]][] = [
    ["namespaces agree", legacy("ns1", "ns1"), []],
    ["a cluster-scoped object in default", legacy("default"), []],
    [
      "namespaces differ",
      legacy("ns1", "ns2"),
      ['involvedObject.namespace: Invalid value: "ns2": does not match event.namespace'],
    ],
    [
      "a cluster-scoped object elsewhere",
      legacy("ns1"),
      ['involvedObject.namespace: Invalid value: "": does not match event.namespace'],
    ],
    [
      "no involved object at all",
      { metadata: { name: "e", namespace: "ns1" } },
      ['involvedObject.namespace: Invalid value: "": does not match event.namespace'],
    ],
    [
      "a new-style event needs its reporting fields",
      {
        metadata: { name: "e", namespace: "ns1" },
        involvedObject: { namespace: "ns1" },
        eventTime: "2024-01-01T00:00:00.000000Z",
      },
      [
        "reportingController: Required value",
        'reportingController: Invalid value: "": name part must be non-empty',
        "reportingController: Invalid value: \"\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
        "reportingInstance: Required value",
        "action: Required value",
        "reason: Required value",
      ],
    ],
    [
      "a complete new-style event about a cluster-scoped object in the system namespace",
      {
        metadata: { name: "e", namespace: n.systemNamespace },
        involvedObject: { kind: "Node", name: "n1" },
        eventTime: "2024-01-01T00:00:00.000000Z",
        reportingComponent: "example.com/controller",
        reportingInstance: "host-1",
        action: "Check",
        reason: "Ok",
      },
      [],
    ],
    [
      "new-style limits",
      {
        metadata: { name: "e", namespace: "ns1" },
        involvedObject: { namespace: "ns1" },
        eventTime: "2024-01-01T00:00:00.000000Z",
        reportingComponent: "c",
        reportingInstance: "i".repeat(129),
        action: "a".repeat(129),
        reason: "r".repeat(129),
        message: "m".repeat(1025),
      },
      [
        'reportingInstance: Invalid value: "": can have at most 128 characters',
        'action: Invalid value: "": can have at most 128 characters',
        'reason: Invalid value: "": can have at most 128 characters',
        'message: Invalid value: "": can have at most 1024 characters',
      ],
    ],
    ["legacy events may have long messages", { ...legacy("ns1", "ns1"), message: "m".repeat(5000) }, []],
  ];
  for (const [name, event, want] of cases) {
    it(name, () => {
      assert.deepEqual(text(strategy.validate?.(event)), want);
      assert.deepEqual(text(strategy.validateUpdate?.(event, event)), want);
    });
  }

  it("selects on the involved object, reason, source, reporting component and type", () => {
    const event = {
      ...legacy("ns1", "ns1"),
      involvedObject: {
        kind: "Pod",
        namespace: "ns1",
        name: "p",
        uid: "u",
        apiVersion: "v1",
        resourceVersion: "7",
        fieldPath: "spec.containers{c}",
      },
      reportingComponent: "kubelet-r",
    };
    assert.deepEqual(kind.schema.selectableFields?.(event), {
      "involvedObject.kind": "Pod",
      "involvedObject.namespace": "ns1",
      "involvedObject.name": "p",
      "involvedObject.uid": "u",
      "involvedObject.apiVersion": "v1",
      "involvedObject.resourceVersion": "7",
      "involvedObject.fieldPath": "spec.containers{c}",
      reason: "Started",
      reportingComponent: "kubelet-r",
      source: "kubelet-r",
      type: "Normal",
    });
    assert.equal(
      kind.schema.selectableFields?.({ ...event, source: { component: "kubelet" } }).source,
      "kubelet",
    );
  });

  it("table columns", () => {
    const ago = (ms: number) => new Date(Date.now() - ms).toISOString();
    const event = {
      ...legacy("ns1", "ns1"),
      message: "  Started container \n",
      source: { component: "kubelet", host: "node-1" },
      firstTimestamp: ago(3 * 3600_000),
      lastTimestamp: ago(5 * 60_000),
      count: 4,
    };
    const cols = kind.schema.tableColumns ?? [];
    assert.deepEqual(
      cols.map((c) => [c.name, c.priority, c.cell(event)]),
      [
        ["Last Seen", 0, "5m"],
        ["Type", 0, "Normal"],
        ["Reason", 0, "Started"],
        ["Object", 0, "pod/pod-a"],
        ["Subobject", 1, ""],
        ["Source", 1, "kubelet, node-1"],
        ["Message", 0, "Started container"],
        ["First Seen", 1, "3h"],
        ["Count", 1, 4],
      ],
    );
    const cell = (name: string, e: JsonObject) => cols.find((c) => c.name === name)?.cell(e);
    const newStyle = {
      involvedObject: { kind: "Node" },
      eventTime: ago(10_000),
      reportingComponent: "ctl",
      reportingInstance: "i",
    };
    assert.equal(cell("Last Seen", newStyle), "10s");
    assert.equal(cell("First Seen", newStyle), "10s");
    assert.equal(cell("Count", newStyle), 1);
    assert.equal(cell("Object", newStyle), "node");
    assert.equal(cell("Source", newStyle), "ctl, i");
    const series = { ...newStyle, series: { count: 9, lastObservedTime: ago(61_000) } };
    assert.equal(cell("Last Seen", series), "61s");
    assert.equal(cell("Count", series), 9);
    assert.equal(cell("Last Seen", { involvedObject: {} }), "<unknown>");
  });
});
