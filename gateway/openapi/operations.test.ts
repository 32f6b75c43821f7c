import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { naming } from "../../backends/naming/index.ts";
import type { PathItem } from "./model.ts";
import { type OperationDefinitions, resourcePaths } from "./operations.ts";
import { configMaps, namespaces, testSchema, widgets } from "./testing.ts";

const k8s = naming("kubernetes");
const definitions: OperationDefinitions = {
  kind: "K",
  list: "KList",
  status: "Status",
  deleteOptions: "DeleteOptions",
  watchEvent: "WatchEvent",
  patch: "Patch",
};

function byPath(items: readonly PathItem[]): Map<string, PathItem> {
  return new Map(items.map((i) => [i.path, i]));
}

function ops(item: PathItem | undefined): Record<string, [string, string]> {
  assert.ok(item);
  return Object.fromEntries(item.operations.map((o) => [o.method, [o.operationId, o.action]]));
}

const names = (params: readonly { name: string }[]) => params.map((p) => p.name);

describe("resourcePaths", () => {
  it("lays out a namespaced resource like the reference server", () => {
    const paths = byPath(resourcePaths(configMaps, "v1", { naming: k8s, definitions }));
    assert.deepEqual([...paths.keys()].sort(), [
      "/api/v1/configmaps",
      "/api/v1/namespaces/{namespace}/configmaps",
      "/api/v1/namespaces/{namespace}/configmaps/{name}",
      "/api/v1/watch/configmaps",
      "/api/v1/watch/namespaces/{namespace}/configmaps",
      "/api/v1/watch/namespaces/{namespace}/configmaps/{name}",
    ]);
    assert.deepEqual(ops(paths.get("/api/v1/namespaces/{namespace}/configmaps")), {
      get: ["listCoreV1NamespacedConfigMap", "list"],
      post: ["createCoreV1NamespacedConfigMap", "post"],
      delete: ["deleteCoreV1CollectionNamespacedConfigMap", "deletecollection"],
    });
    assert.deepEqual(ops(paths.get("/api/v1/namespaces/{namespace}/configmaps/{name}")), {
      get: ["readCoreV1NamespacedConfigMap", "get"],
      put: ["replaceCoreV1NamespacedConfigMap", "put"],
      patch: ["patchCoreV1NamespacedConfigMap", "patch"],
      delete: ["deleteCoreV1NamespacedConfigMap", "delete"],
    });
    assert.deepEqual(ops(paths.get("/api/v1/configmaps")), {
      get: ["listCoreV1ConfigMapForAllNamespaces", "list"],
    });
    assert.deepEqual(ops(paths.get("/api/v1/watch/configmaps")), {
      get: ["watchCoreV1ConfigMapListForAllNamespaces", "watchlist"],
    });
    assert.deepEqual(ops(paths.get("/api/v1/watch/namespaces/{namespace}/configmaps")), {
      get: ["watchCoreV1NamespacedConfigMapList", "watchlist"],
    });
    assert.deepEqual(ops(paths.get("/api/v1/watch/namespaces/{namespace}/configmaps/{name}")), {
      get: ["watchCoreV1NamespacedConfigMap", "watch"],
    });
  });

  it("hoists the parameters every operation of a path shares", () => {
    const paths = byPath(resourcePaths(configMaps, "v1", { naming: k8s, definitions }));
    const item = paths.get("/api/v1/namespaces/{namespace}/configmaps/{name}")!;
    assert.deepEqual(names(item.parameters), ["name", "namespace", "pretty"]);
    const patch = item.operations.find((o) => o.method === "patch")!;
    assert.deepEqual(names(patch.parameters), ["dryRun", "fieldManager", "fieldValidation", "force"]);
    const put = item.operations.find((o) => o.method === "put")!;
    assert.deepEqual(names(put.parameters), ["dryRun", "fieldManager", "fieldValidation"]);
    const del = item.operations.find((o) => o.method === "delete")!;
    assert.deepEqual(names(del.parameters), [
      "dryRun",
      "gracePeriodSeconds",
      "orphanDependents",
      "propagationPolicy",
    ]);
    assert.deepEqual(item.operations.find((o) => o.method === "get")!.parameters, []);

    const collection = paths.get("/api/v1/namespaces/{namespace}/configmaps")!;
    assert.deepEqual(names(collection.parameters), ["namespace", "pretty"]);
    const deleteCollection = collection.operations.find((o) => o.action === "deletecollection")!;
    assert.ok(!names(deleteCollection.parameters).includes("watch"));
    assert.ok(!names(deleteCollection.parameters).includes("allowWatchBookmarks"));
    assert.ok(names(deleteCollection.parameters).includes("labelSelector"));

    // A path with one operation keeps everything at the path level.
    const all = paths.get("/api/v1/configmaps")!;
    assert.ok(names(all.parameters).includes("watch"));
    assert.deepEqual(all.operations[0]!.parameters, []);
    const nsParam = collection.parameters.find((p) => p.name === "namespace")!;
    assert.equal(nsParam.in, "path");
    assert.equal(nsParam.required, true);
  });

  it("describes bodies and responses", () => {
    const paths = byPath(resourcePaths(configMaps, "v1", { naming: k8s, definitions }));
    const item = paths.get("/api/v1/namespaces/{namespace}/configmaps/{name}")!;
    const patch = item.operations.find((o) => o.method === "patch")!;
    assert.deepEqual(patch.requestBody, {
      definition: "Patch",
      mediaTypes: ["application/json-patch+json", "application/merge-patch+json"],
      required: true,
    });
    assert.deepEqual(
      patch.responses.map((r) => [r.code, r.definition]),
      [
        ["200", "K"],
        ["201", "K"],
        ["401", undefined],
      ],
    );
    assert.deepEqual(patch.gvk, { group: "", version: "v1", kind: "ConfigMap" });
    assert.deepEqual(patch.tags, ["core_v1"]);
    assert.equal(patch.description, "partially update the specified ConfigMap");
    const del = item.operations.find((o) => o.method === "delete")!;
    assert.equal(del.requestBody?.definition, "DeleteOptions");
    assert.equal(del.requestBody?.required, false);
    assert.equal(del.description, "delete a ConfigMap");
    const list = paths
      .get("/api/v1/namespaces/{namespace}/configmaps")!
      .operations.find((o) => o.action === "list")!;
    assert.ok(list.produces.includes("application/json;stream=watch"));
    assert.ok(list.produces.includes(k8s.protobufMediaType));
    assert.equal(list.description, "list or watch objects of kind ConfigMap");
  });

  it("advertises the patch types it is told the server accepts", () => {
    const patchMediaTypes = ["application/json-patch+json", "application/strategic-merge-patch+json"];
    const paths = byPath(resourcePaths(configMaps, "v1", { naming: k8s, definitions, patchMediaTypes }));
    const patch = paths
      .get("/api/v1/namespaces/{namespace}/configmaps/{name}")!
      .operations.find((o) => o.method === "patch");
    assert.deepEqual(patch?.requestBody?.mediaTypes, patchMediaTypes);
  });

  it("lays out a cluster-scoped resource with its own-kind subresources", () => {
    const paths = byPath(resourcePaths(namespaces, "v1", { naming: k8s, definitions }));
    assert.deepEqual([...paths.keys()].sort(), [
      "/api/v1/namespaces",
      "/api/v1/namespaces/{name}",
      "/api/v1/namespaces/{name}/finalize",
      "/api/v1/namespaces/{name}/status",
      "/api/v1/watch/namespaces",
      "/api/v1/watch/namespaces/{name}",
    ]);
    assert.deepEqual(ops(paths.get("/api/v1/namespaces")), {
      get: ["listCoreV1Namespace", "list"],
      post: ["createCoreV1Namespace", "post"],
    });
    assert.deepEqual(ops(paths.get("/api/v1/namespaces/{name}/status")), {
      get: ["readCoreV1NamespaceStatus", "get"],
      put: ["replaceCoreV1NamespaceStatus", "put"],
      patch: ["patchCoreV1NamespaceStatus", "patch"],
    });
    assert.deepEqual(ops(paths.get("/api/v1/namespaces/{name}/finalize")), {
      put: ["replaceCoreV1NamespaceFinalize", "put"],
    });
    const status = paths.get("/api/v1/namespaces/{name}/status")!;
    assert.equal(
      status.operations.find((o) => o.method === "get")!.description,
      "read status of the specified Namespace",
    );
    assert.deepEqual(names(status.operations.find((o) => o.method === "patch")!.parameters), [
      "dryRun",
      "fieldManager",
      "fieldValidation",
      "force",
    ]);
  });

  it("skips subresources of another kind and follows the verbs", () => {
    const paths = byPath(resourcePaths(widgets, "v1", { naming: k8s, definitions }));
    assert.ok(paths.has("/apis/stable.example.com/v1/namespaces/{namespace}/widgets/{name}/status"));
    assert.ok(!paths.has("/apis/stable.example.com/v1/namespaces/{namespace}/widgets/{name}/scale"));
    assert.equal(
      ops(paths.get("/apis/stable.example.com/v1/namespaces/{namespace}/widgets/{name}")).patch?.[0],
      "patchStableExampleComV1NamespacedWidget",
    );

    const readOnly = testSchema({ group: "", plural: "events", kind: "Event", verbs: ["get", "list"] });
    const ro = byPath(resourcePaths(readOnly, "v1", { naming: k8s, definitions }));
    assert.deepEqual([...ro.keys()].sort(), [
      "/api/v1/events",
      "/api/v1/namespaces/{namespace}/events",
      "/api/v1/namespaces/{namespace}/events/{name}",
    ]);
    const list = ro.get("/api/v1/namespaces/{namespace}/events")!.operations[0]!;
    assert.equal(list.description, "list objects of kind Event");
  });

  it("uses an for kinds starting with a vowel and nothing for plurals", () => {
    const events = testSchema({ group: "", plural: "events", kind: "Event" });
    const endpoints = testSchema({ group: "", plural: "endpoints", kind: "Endpoints" });
    const post = (s: typeof events) =>
      resourcePaths(s, "v1", { naming: k8s, definitions })
        .flatMap((p) => p.operations)
        .find((o) => o.action === "post")!.description;
    assert.equal(post(events), "create an Event");
    assert.equal(post(endpoints), "create Endpoints");
  });
});
