import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { naming } from "../../backends/naming/index.ts";
import { buildGroupVersions } from "./group-versions.ts";
import { configMaps, namespaces, testSchema, widgets } from "./testing.ts";

const k8s = naming("kubernetes");

describe("buildGroupVersions", () => {
  const apis = buildGroupVersions([widgets, namespaces, configMaps], { naming: k8s });

  it("has one entry per served group version, sorted", () => {
    assert.deepEqual(
      apis.map((a) => `${a.group}/${a.version}`),
      ["/v1", "stable.example.com/v1", "stable.example.com/v1beta1"],
    );
  });

  it("defines each kind, its list and only the meta types something refers to", () => {
    const core = apis[0]!;
    assert.deepEqual(
      core.definitions.map((d) => d.name),
      [
        "io.k8s.api.core.v1.ConfigMap",
        "io.k8s.api.core.v1.ConfigMapList",
        "io.k8s.api.core.v1.Namespace",
        "io.k8s.api.core.v1.NamespaceList",
        "io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions",
        "io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta",
        "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta",
        "io.k8s.apimachinery.pkg.apis.meta.v1.Patch",
        "io.k8s.apimachinery.pkg.apis.meta.v1.Status",
        "io.k8s.apimachinery.pkg.apis.meta.v1.WatchEvent",
      ],
    );
    assert.deepEqual(
      apis[1]!.definitions.slice(0, 2).map((d) => d.name),
      ["com.example.stable.v1.Widget", "com.example.stable.v1.WidgetList"],
    );
    const getOnly = buildGroupVersions(
      [testSchema({ group: "", plural: "things", kind: "Thing", verbs: ["get"] })],
      {
        naming: k8s,
      },
    );
    assert.deepEqual(
      getOnly[0]!.definitions.map((d) => d.name),
      ["io.k8s.api.core.v1.Thing", "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"],
    );
  });

  it("keeps a kind's schema to the fields every object has", () => {
    const cm = apis[0]!.definitions.find((d) => d.name === "io.k8s.api.core.v1.ConfigMap")!.schema;
    assert.equal(cm.type, "object");
    assert.deepEqual(Object.keys(cm.properties as object), ["apiVersion", "kind", "metadata"]);
    assert.equal(cm.additionalProperties, undefined);
    assert.deepEqual(cm["x-kubernetes-group-version-kind"], [
      { group: "", kind: "ConfigMap", version: "v1" },
    ]);
    const list = apis[0]!.definitions.find((d) => d.name === "io.k8s.api.core.v1.ConfigMapList")!.schema;
    assert.deepEqual(list["x-kubernetes-group-version-kind"], [
      { group: "", kind: "ConfigMapList", version: "v1" },
    ]);
    assert.deepEqual((list.properties as Record<string, { items?: unknown }>).items?.items, {
      $ref: "io.k8s.api.core.v1.ConfigMap",
    });
  });
});
