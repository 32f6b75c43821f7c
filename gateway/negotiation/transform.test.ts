import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { naming } from "../../backends/naming/index.ts";
import { ApiError } from "../request/api-error.ts";
import { negotiateOutput } from "./media-type.ts";
import { transformResult } from "./transform.ts";

const k8s = naming("kubernetes");
const context = { naming: k8s };
const output = (accept: string) =>
  negotiateOutput(accept, { naming: k8s, tableSupported: true, protobufSupported: false });
const TABLE = output("application/json;as=Table;v=v1;g=meta.k8s.io");

const pod = {
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name: "a", resourceVersion: "4", creationTimestamp: "2024-05-01T10:00:00Z" },
};
const list = {
  apiVersion: "v1",
  kind: "PodList",
  metadata: { resourceVersion: "8", continue: "c" },
  items: [pod],
};

describe("transformResult", () => {
  it("plain output: unchanged", () => {
    assert.equal(transformResult(pod, output("application/json"), context), pod);
  });
  it("Table of a single object carries its resourceVersion", () => {
    const table = transformResult(pod, TABLE, context);
    assert.deepEqual(table.metadata, { resourceVersion: "4" });
    assert.equal((table.rows as unknown[]).length, 1);
  });
  it("Table of a list carries the list metadata", () => {
    const table = transformResult(list, TABLE, context);
    assert.deepEqual(table.metadata, { resourceVersion: "8", continue: "c" });
  });
  it("a Status is never converted", () => {
    const status = { kind: "Status", apiVersion: "v1", status: "Success" };
    assert.equal(transformResult(status, TABLE, context), status);
  });
  it("PartialObjectMetadata(List), and the 406 for a mismatch", () => {
    const one = output("application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1");
    const many = output("application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1");
    assert.equal(transformResult(pod, one, context).kind, "PartialObjectMetadata");
    assert.equal(transformResult(list, many, context).kind, "PartialObjectMetadataList");
    assert.throws(
      () => transformResult(list, one, context),
      (e: unknown) => e instanceof ApiError && e.code === 406,
    );
    assert.throws(
      () => transformResult(pod, many, context),
      (e: unknown) => e instanceof ApiError && e.code === 406,
    );
  });
  it("a cell that throws is empty, never a failure of the response", () => {
    const columns = [
      { name: "Name", type: "string" as const, description: "", priority: 0, cell: () => "a" },
      {
        name: "Broken",
        type: "string" as const,
        description: "",
        priority: 0,
        cell: () => {
          throw new TypeError("cannot read properties of undefined");
        },
      },
    ];
    const table = transformResult(pod, TABLE, { ...context, columns });
    assert.deepEqual((table.rows as { cells: unknown[] }[])[0]?.cells, ["a", null]);
  });
});
