import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { naming } from "../../backends/naming/index.ts";
import type { TableColumn } from "../../backends/schema/index.ts";
import { formatTimestamp, type TableInput, tableColumns, toTable } from "./table.ts";

const k8s = naming("kubernetes");

const cm = (name: string, created?: string) => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: {
    name,
    namespace: "default",
    resourceVersion: "10",
    ...(created ? { creationTimestamp: created } : {}),
  },
  data: { k: "v" },
});

const base: TableInput = { items: [], includeObject: "Metadata", tableVersion: "v1", naming: k8s };

describe("toTable: default columns", () => {
  it("kind Table with Name and Created At; Metadata rows", () => {
    const a = cm("a", "2024-05-01T10:00:00Z");
    const table = toTable({
      ...base,
      items: [a],
      listMeta: { resourceVersion: "42", continue: "next", remainingItemCount: 5 },
    });
    assert.equal(
      JSON.stringify(Object.keys(table)),
      '["kind","apiVersion","metadata","columnDefinitions","rows"]',
    );
    assert.equal(table.kind, "Table");
    assert.equal(table.apiVersion, "meta.k8s.io/v1");
    assert.deepEqual(table.metadata, { resourceVersion: "42", continue: "next", remainingItemCount: 5 });
    const defs = table.columnDefinitions as Record<string, unknown>[];
    assert.deepEqual(
      defs.map((d) => [d.name, d.type, d.format, d.priority, Object.keys(d).join(",")]),
      [
        ["Name", "string", "name", 0, "name,type,format,description,priority"],
        ["Created At", "date", "", 0, "name,type,format,description,priority"],
      ],
    );
    for (const d of defs) assert.ok(typeof d.description === "string" && d.description.length > 0);
    assert.deepEqual(table.rows, [
      {
        cells: ["a", "2024-05-01T10:00:00Z"],
        object: { kind: "PartialObjectMetadata", apiVersion: "meta.k8s.io/v1", metadata: a.metadata },
      },
    ]);
  });
  it("v1beta1 and the cluster preset", () => {
    const table = toTable({ ...base, items: [cm("a")], tableVersion: "v1beta1", naming: naming("cluster") });
    assert.equal(table.apiVersion, "meta.cluster.io/v1beta1");
    const row = (table.rows as { object: Record<string, unknown> }[])[0]!;
    assert.equal(row.object.apiVersion, "meta.cluster.io/v1beta1");
  });
  it("includeObject Object and None", () => {
    const a = cm("a");
    assert.deepEqual((toTable({ ...base, items: [a], includeObject: "Object" }).rows as unknown[])[0], {
      cells: ["a", "0001-01-01T00:00:00Z"],
      object: a,
    });
    assert.deepEqual((toTable({ ...base, items: [a], includeObject: "None" }).rows as unknown[])[0], {
      cells: ["a", "0001-01-01T00:00:00Z"],
      object: null,
    });
  });
  it("headers left out: columnDefinitions null", () => {
    assert.equal(toTable({ ...base, items: [cm("a")], headers: false }).columnDefinitions, null);
  });
  it("an empty list has rows null and empty metadata", () => {
    const table = toTable(base);
    assert.equal(table.rows, null);
    assert.deepEqual(table.metadata, {});
  });
  it("encodes as upstream's field order", () => {
    const json = JSON.stringify(
      toTable({ ...base, items: [cm("a", "2024-05-01T10:00:00Z")], includeObject: "None" }),
    );
    assert.match(
      json,
      /^\{"kind":"Table","apiVersion":"meta.k8s.io\/v1","metadata":\{\},"columnDefinitions":\[\{"name":"Name","type":"string","format":"name","description":"[^"]+","priority":0\},\{"name":"Created At","type":"date","format":"","description":"[^"]+","priority":0\}\],"rows":\[\{"cells":\["a","2024-05-01T10:00:00Z"\],"object":null\}\]\}$/,
    );
  });
});

describe("toTable: a kind's own columns", () => {
  const columns: TableColumn[] = [
    {
      name: "Data",
      type: "integer",
      description: "Number of entries.",
      priority: 0,
      cell: (o) => Object.keys((o.data as object) ?? {}).length,
    },
    { name: "Note", type: "string", description: "Optional.", priority: 1, cell: () => undefined },
  ];
  it("Name first, then the kind's columns; undefined cells are null", () => {
    const table = toTable({ ...base, items: [cm("a")], columns, includeObject: "None" });
    assert.deepEqual(
      (table.columnDefinitions as { name: string; priority: number }[]).map((d) => [d.name, d.priority]),
      [
        ["Name", 0],
        ["Data", 0],
        ["Note", 1],
      ],
    );
    assert.deepEqual(table.rows, [{ cells: ["a", 1, null], object: null }]);
  });
  it("an empty list has an empty rows array", () => {
    assert.deepEqual(toTable({ ...base, columns }).rows, []);
  });
  it("Name is not repeated", () => {
    const withName = tableColumns([{ ...columns[0]!, name: "Name" }]);
    assert.equal(withName.length, 1);
    assert.equal(tableColumns(undefined).length, 2);
    assert.equal(tableColumns([]).length, 2);
  });
});

describe("formatTimestamp", () => {
  const cases: [unknown, string][] = [
    ["2024-05-01T10:00:00Z", "2024-05-01T10:00:00Z"],
    ["2024-05-01T12:00:00+02:00", "2024-05-01T10:00:00Z"],
    ["2024-05-01T10:00:00.999Z", "2024-05-01T10:00:00Z"],
    [undefined, "0001-01-01T00:00:00Z"],
    [null, "0001-01-01T00:00:00Z"],
    ["garbage", "0001-01-01T00:00:00Z"],
  ];
  for (const [input, expected] of cases) {
    it(String(input), () => assert.equal(formatTimestamp(input), expected));
  }
});
