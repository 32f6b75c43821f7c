import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { naming } from "../../backends/naming/index.ts";
import { ApiError } from "../request/api-error.ts";
import { listMeta, toPartialObjectMetadata, toPartialObjectMetadataList } from "./partial-metadata.ts";

const k8s = { naming: naming("kubernetes"), version: "v1" as const };
const clusterBeta = { naming: naming("cluster"), version: "v1beta1" as const };

const pod = {
  apiVersion: "v1",
  kind: "Pod",
  metadata: {
    name: "a",
    namespace: "default",
    uid: "u1",
    resourceVersion: "7",
    creationTimestamp: "2024-05-01T10:00:00Z",
    labels: { app: "x" },
    managedFields: [{ manager: "kubectl", operation: "Apply" }],
  },
  spec: { containers: [{ name: "c" }] },
  status: { phase: "Running" },
};

describe("toPartialObjectMetadata", () => {
  it("keeps all metadata, drops the rest", () => {
    assert.deepEqual(toPartialObjectMetadata(pod, k8s), {
      kind: "PartialObjectMetadata",
      apiVersion: "meta.k8s.io/v1",
      metadata: pod.metadata,
    });
  });
  it("meta group of the naming preset and the requested version", () => {
    assert.equal(toPartialObjectMetadata(pod, clusterBeta).apiVersion, "meta.cluster.io/v1beta1");
  });
  it("a missing creationTimestamp is null, in its place", () => {
    const out = toPartialObjectMetadata(
      { kind: "Pod", metadata: { name: "b", resourceVersion: "3", labels: {} } },
      k8s,
    );
    assert.deepEqual(Object.keys(out.metadata as object), [
      "name",
      "resourceVersion",
      "creationTimestamp",
      "labels",
    ]);
    assert.equal((out.metadata as Record<string, unknown>).creationTimestamp, null);
    const bookmark = toPartialObjectMetadata({ kind: "Pod", metadata: { resourceVersion: "9" } }, k8s);
    assert.deepEqual(bookmark.metadata, { resourceVersion: "9", creationTimestamp: null });
  });
  it("a list is refused with 406", () => {
    assert.throws(
      () => toPartialObjectMetadata({ apiVersion: "v1", kind: "PodList", metadata: {}, items: [] }, k8s),
      (err: unknown) =>
        err instanceof ApiError &&
        err.code === 406 &&
        err.reason === "NotAcceptable" &&
        err.message ===
          "you requested PartialObjectMetadata, but the requested object is a list (*v1.PodList)",
    );
  });
});

describe("toPartialObjectMetadataList", () => {
  it("list metadata and one entry per item", () => {
    const list = {
      apiVersion: "apps/v1",
      kind: "DeploymentList",
      metadata: { resourceVersion: "12", continue: "tok", remainingItemCount: 3 },
      items: [
        {
          apiVersion: "apps/v1",
          kind: "Deployment",
          metadata: { name: "a", creationTimestamp: "2024-05-01T10:00:00Z" },
        },
        {
          apiVersion: "apps/v1",
          kind: "Deployment",
          metadata: { name: "b", creationTimestamp: "2024-05-02T10:00:00Z" },
        },
      ],
    };
    assert.deepEqual(toPartialObjectMetadataList(list, k8s), {
      kind: "PartialObjectMetadataList",
      apiVersion: "meta.k8s.io/v1",
      metadata: { resourceVersion: "12", continue: "tok", remainingItemCount: 3 },
      items: [
        { kind: "PartialObjectMetadata", apiVersion: "meta.k8s.io/v1", metadata: list.items[0]!.metadata },
        { kind: "PartialObjectMetadata", apiVersion: "meta.k8s.io/v1", metadata: list.items[1]!.metadata },
      ],
    });
  });
  it("an empty list has items null, and empty list metadata fields are omitted", () => {
    assert.deepEqual(
      toPartialObjectMetadataList(
        { kind: "PodList", metadata: { resourceVersion: "5", continue: "" }, items: [] },
        clusterBeta,
      ),
      {
        kind: "PartialObjectMetadataList",
        apiVersion: "meta.cluster.io/v1beta1",
        metadata: { resourceVersion: "5" },
        items: null,
      },
    );
  });
  it("a single object is refused with 406", () => {
    assert.throws(
      () => toPartialObjectMetadataList(pod, k8s),
      (err: unknown) =>
        err instanceof ApiError &&
        err.code === 406 &&
        err.message ===
          "you requested PartialObjectMetadataList, but the requested object is not a list (*v1.Pod)",
    );
  });
});

describe("listMeta", () => {
  it("keeps only set fields", () => {
    assert.deepEqual(listMeta(undefined), {});
    assert.deepEqual(listMeta({ resourceVersion: "", continue: "", selfLink: "x" }), {});
    assert.deepEqual(listMeta({ remainingItemCount: 0 }), { remainingItemCount: 0 });
  });
});
