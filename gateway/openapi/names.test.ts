import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { naming } from "../../backends/naming/index.ts";
import {
  definitionPrefixes,
  groupVersionPath,
  metaDefinition,
  operationId,
  operationTag,
  preferredDefinitionPrefix,
  toValidOperationId,
} from "./names.ts";

const k8s = naming("kubernetes");
const cluster = naming("cluster");

describe("toValidOperationId", () => {
  it("drops punctuation and capitalizes what follows, like upstream", () => {
    assert.equal(toValidOperationId("rbac.authorization", true), "RbacAuthorization");
    assert.equal(toValidOperationId("rbac.authorization", false), "rbacAuthorization");
    assert.equal(toValidOperationId("v1beta1", true), "V1beta1");
    assert.equal(toValidOperationId("stable.example.com", true), "StableExampleCom");
    assert.equal(toValidOperationId("3scale.net", false), "ScaleNet");
    assert.equal(toValidOperationId("my_group", true), "My_group");
  });
});

describe("operation IDs and tags", () => {
  it("spell the core group as Core and trim the product suffix", () => {
    assert.equal(
      operationId(k8s, { group: "", version: "v1" }, "read", "NamespacedConfigMap"),
      "readCoreV1NamespacedConfigMap",
    );
    assert.equal(
      operationId(
        k8s,
        { group: "rbac.authorization.k8s.io", version: "v1" },
        "delete",
        "CollectionClusterRole",
      ),
      "deleteRbacAuthorizationV1CollectionClusterRole",
    );
    assert.equal(
      operationId(
        cluster,
        { group: "coordination.cluster.io", version: "v1" },
        "list",
        "LeaseForAllNamespaces",
      ),
      "listCoordinationV1LeaseForAllNamespaces",
    );
    assert.equal(operationTag(k8s, "", "v1"), "core_v1");
    assert.equal(operationTag(k8s, "rbac.authorization.k8s.io", "v1"), "rbacAuthorization_v1");
    assert.equal(operationTag(cluster, "stable.example.com", "v1beta1"), "stableExampleCom_v1beta1");
  });
});

describe("definition names", () => {
  it("are upstream's with the kubernetes preset", () => {
    assert.equal(preferredDefinitionPrefix(k8s, "", "v1"), "io.k8s.api.core.v1");
    assert.equal(preferredDefinitionPrefix(k8s, "apps", "v1"), "io.k8s.api.apps.v1");
    assert.equal(preferredDefinitionPrefix(k8s, "rbac.authorization.k8s.io", "v1"), "io.k8s.api.rbac.v1");
    assert.equal(
      preferredDefinitionPrefix(k8s, "apiextensions.k8s.io", "v1"),
      "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1",
    );
    assert.equal(preferredDefinitionPrefix(k8s, "stable.example.com", "v1"), "com.example.stable.v1");
    assert.equal(metaDefinition(k8s, "ObjectMeta"), "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta");
  });

  it("follow the group suffix with the cluster preset", () => {
    assert.equal(preferredDefinitionPrefix(cluster, "", "v1"), "io.cluster.api.core.v1");
    assert.equal(
      preferredDefinitionPrefix(cluster, "coordination.cluster.io", "v1"),
      "io.cluster.api.coordination.v1",
    );
    assert.equal(metaDefinition(cluster, "Status"), "io.cluster.apimachinery.pkg.apis.meta.v1.Status");
  });

  it("fall back to the reversed group when two group versions would share a prefix", () => {
    const prefixes = definitionPrefixes(k8s, [
      { group: "rbac.other.k8s.io", version: "v1" },
      { group: "rbac.authorization.k8s.io", version: "v1" },
      { group: "rbac.authorization.k8s.io", version: "v1" },
    ]);
    assert.equal(prefixes.get("rbac.authorization.k8s.io/v1"), "io.k8s.api.rbac.v1");
    assert.equal(prefixes.get("rbac.other.k8s.io/v1"), "io.k8s.other.rbac.v1");
  });

  it("key group versions by path", () => {
    assert.equal(groupVersionPath("", "v1"), "api/v1");
    assert.equal(groupVersionPath("apps", "v1"), "apis/apps/v1");
  });
});
