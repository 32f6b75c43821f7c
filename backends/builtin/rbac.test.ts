import assert from "node:assert/strict";
import { afterEach, beforeEach, describe, it } from "node:test";
import { naming } from "../naming/naming.ts";
import { RegistryError } from "../registry/errors.ts";
import { formatFieldError } from "../registry/field-error.ts";
import type { Registry } from "../registry/registry.ts";
import type { JsonObject } from "../registry/strategy.ts";
import type { BuiltinKind } from "./kind.ts";
import { rbacKinds } from "./rbac.ts";
import { type ServedKind, serveKind } from "./testing.ts";

const n = naming("kubernetes");
const GROUP = "rbac.authorization.k8s.io";
const kinds = rbacKinds(n);
const byPlural = (plural: string): BuiltinKind => kinds.find((k) => k.schema.plural === plural)!;
const role = byPlural("roles");
const clusterRole = byPlural("clusterroles");
const roleBinding = byPlural("rolebindings");
const clusterRoleBinding = byPlural("clusterrolebindings");

/** Runs a kind's create preparation and validation, as the registry does. */
function createErrors(kind: BuiltinKind, object: JsonObject): string[] {
  kind.strategy.prepareForCreate?.(object);
  return (kind.strategy.validate?.(object) ?? []).map(formatFieldError);
}

function decodeFailure(kind: BuiltinKind, object: JsonObject): string {
  try {
    kind.strategy.prepareForCreate?.(object);
  } catch (err) {
    assert.ok(err instanceof RegistryError);
    assert.equal(err.reason, "BadRequest");
    return err.message;
  }
  return assert.fail("expected a decode error");
}

describe("RBAC kinds", () => {
  it("are the four kinds of rbac.authorization/v1 with upstream's shape", () => {
    assert.deepEqual(
      kinds.map((k) => [
        k.schema.group,
        k.schema.plural,
        k.schema.kind,
        k.schema.namespaced,
        k.schema.allowCreateOnUpdate,
      ]),
      [
        [GROUP, "roles", "Role", true, true],
        [GROUP, "clusterroles", "ClusterRole", false, true],
        [GROUP, "rolebindings", "RoleBinding", true, true],
        [GROUP, "clusterrolebindings", "ClusterRoleBinding", false, true],
      ],
    );
    assert.deepEqual(clusterRole.schema.versions, [{ name: "v1", served: true, storage: true }]);
    for (const k of kinds) assert.equal(k.strategy.nameRule, "path-segment");
    assert.equal(
      naming("cluster").group("rbac.authorization"),
      rbacKinds(naming("cluster"))[0]!.schema.group,
    );
  });

  it("accepts well-formed rules and drops empty optional lists", () => {
    const object: JsonObject = {
      metadata: { name: "r", namespace: "ns" },
      rules: [
        { verbs: ["get"], apiGroups: [""], resources: ["pods"], resourceNames: [], nonResourceURLs: null },
      ],
    };
    assert.deepEqual(createErrors(role, object), []);
    assert.deepEqual(object.rules, [{ verbs: ["get"], apiGroups: [""], resources: ["pods"] }]);
    const empty: JsonObject = { metadata: { name: "e" } };
    assert.deepEqual(createErrors(clusterRole, empty), []);
    assert.equal(empty.rules, null, "no rules is written as null, as upstream");
    assert.deepEqual(
      createErrors(clusterRole, {
        metadata: { name: "c" },
        rules: [{ verbs: ["get"], nonResourceURLs: ["/healthz", "/api/*"] }],
      }),
      [],
    );
  });

  it("refuses rules as upstream's validation does", () => {
    assert.deepEqual(
      createErrors(role, {
        metadata: { name: "r" },
        rules: [
          { apiGroups: [""], resources: ["pods"] },
          { verbs: ["get"] },
          { verbs: ["get"], apiGroups: [""], resources: ["pods", "secrets"], resourceNames: ["x"] },
          { verbs: ["get"], nonResourceURLs: ["/metrics"] },
        ],
      }),
      [
        "rules[0].verbs: Required value: verbs must contain at least one value",
        "rules[1].apiGroups: Required value: resource rules must supply at least one api group",
        "rules[1].resources: Required value: resource rules must supply at least one resource",
        "rules[2].resourceNames: Required value: resource names cannot apply to multiple resources",
        'rules[3].nonResourceURLs: Invalid value: ["/metrics"]: namespaced rules cannot apply to non-resource URLs',
      ],
    );
    assert.deepEqual(
      createErrors(clusterRole, {
        metadata: { name: "c" },
        rules: [{ verbs: ["get"], resources: ["pods"], nonResourceURLs: ["/metrics"] }],
      }),
      [
        'rules[0].nonResourceURLs: Invalid value: ["/metrics"]: rules cannot apply to both regular resources and non-resource URLs',
      ],
    );
  });

  it("checks aggregation rules' label selectors", () => {
    assert.deepEqual(
      createErrors(clusterRole, {
        metadata: { name: "agg" },
        aggregationRule: { clusterRoleSelectors: [{ matchLabels: { "example.com/x": "true" } }] },
      }),
      [],
    );
    assert.deepEqual(createErrors(clusterRole, { metadata: { name: "agg" }, aggregationRule: {} }), [
      "aggregationRule.clusterRoleSelectors: Required value: at least one clusterRoleSelector required if aggregationRule is non-nil",
    ]);
    assert.deepEqual(
      createErrors(clusterRole, {
        metadata: { name: "agg" },
        aggregationRule: {
          clusterRoleSelectors: [
            {
              matchLabels: { "bad key!": "v" },
              matchExpressions: [
                { key: "a", operator: "In" },
                { key: "b", operator: "Exists", values: ["x"] },
                { key: "c", operator: "Near" },
              ],
            },
          ],
        },
      }),
      [
        "aggregationRule.clusterRoleSelectors[0].matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'",
        "aggregationRule.clusterRoleSelectors[0].matchExpressions[1].values: Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
        'aggregationRule.clusterRoleSelectors[0].matchExpressions[2].operator: Invalid value: "Near": not a valid selector operator',
        "aggregationRule.clusterRoleSelectors[0].matchLabels: Invalid value: \"bad key!\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
      ],
    );
  });

  it("reads wrongly typed fields as upstream's decoder refuses them", () => {
    assert.equal(
      decodeFailure(role, { metadata: { name: "r" }, rules: [{ verbs: "get" }] }),
      'Role in version "v1" cannot be handled as a Role: json: cannot unmarshal string into Go struct field PolicyRule.rules.verbs of type []string',
    );
    assert.equal(
      decodeFailure(clusterRole, { metadata: { name: "r" }, rules: {} }),
      'ClusterRole in version "v1" cannot be handled as a ClusterRole: json: cannot unmarshal object into Go struct field ClusterRole.rules of type []v1.PolicyRule',
    );
    assert.match(
      decodeFailure(clusterRoleBinding, { metadata: { name: "b" }, roleRef: { name: 5 } }),
      /cannot unmarshal number into Go struct field RoleRef.roleRef.name of type string$/,
    );
    assert.match(
      decodeFailure(roleBinding, { metadata: { name: "b" }, subjects: ["alice"] }),
      /cannot unmarshal string into Go struct field RoleBinding.subjects of type v1.Subject$/,
    );
    assert.match(
      decodeFailure(clusterRole, {
        metadata: { name: "c" },
        aggregationRule: {
          clusterRoleSelectors: [{ matchExpressions: [{ key: "a", operator: "In", values: [1] }] }],
        },
      }),
      /LabelSelectorRequirement.aggregationRule.clusterRoleSelectors.matchExpressions.values of type string$/,
    );
  });

  it("defaults the role reference's and subjects' API groups", () => {
    const object: JsonObject = {
      metadata: { name: "b", namespace: "ns" },
      roleRef: { kind: "Role", name: "r" },
      subjects: [
        { kind: "User", name: "alice" },
        { kind: "Group", name: "devs" },
        { kind: "ServiceAccount", name: "default", apiGroup: "" },
      ],
    };
    assert.deepEqual(createErrors(roleBinding, object), []);
    assert.deepEqual(object.roleRef, { apiGroup: GROUP, kind: "Role", name: "r" });
    assert.deepEqual(object.subjects, [
      { kind: "User", name: "alice", apiGroup: GROUP },
      { kind: "Group", name: "devs", apiGroup: GROUP },
      { kind: "ServiceAccount", name: "default" },
    ]);
  });

  it("refuses bad role references and subjects", () => {
    assert.deepEqual(
      createErrors(clusterRoleBinding, {
        metadata: { name: "b" },
        roleRef: { apiGroup: "example.com", kind: "Role", name: "a/b" },
        subjects: [
          { kind: "ServiceAccount", name: "Bad_Name", apiGroup: "x" },
          { kind: "User", name: "" },
          { kind: "Robot", name: "r2" },
        ],
      }),
      [
        `roleRef.apiGroup: Unsupported value: "example.com": supported values: "${GROUP}"`,
        'roleRef.kind: Unsupported value: "Role": supported values: "ClusterRole"',
        "roleRef.name: Invalid value: \"a/b\": may not contain '/'",
        "subjects[0].name: Invalid value: \"Bad_Name\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
        'subjects[0].apiGroup: Unsupported value: "x": supported values: ""',
        "subjects[0].namespace: Required value",
        "subjects[1].name: Required value",
        'subjects[1].name: Invalid value: "": user name cannot be empty',
        'subjects[2].kind: Unsupported value: "Robot": supported values: "ServiceAccount", "User", "Group"',
      ],
    );
    assert.deepEqual(createErrors(roleBinding, { metadata: { name: "b" }, roleRef: { kind: "Thing" } }), [
      'roleRef.kind: Unsupported value: "Thing": supported values: "Role", "ClusterRole"',
      "roleRef.name: Required value",
    ]);
    // A RoleBinding's service account may leave the namespace out: it is the binding's.
    assert.deepEqual(
      createErrors(roleBinding, {
        metadata: { name: "b" },
        roleRef: { kind: "ClusterRole", name: "view" },
        subjects: [{ kind: "ServiceAccount", name: "default" }],
      }),
      [],
    );
  });

  it("keeps roleRef immutable", () => {
    const old: JsonObject = {
      metadata: { name: "b" },
      roleRef: { apiGroup: GROUP, kind: "ClusterRole", name: "view" },
    };
    const same: JsonObject = {
      metadata: { name: "b" },
      roleRef: { kind: "ClusterRole", name: "view" },
      subjects: [],
    };
    clusterRoleBinding.strategy.prepareForUpdate?.(same, old);
    assert.deepEqual(clusterRoleBinding.strategy.validateUpdate?.(same, old), []);
    const changed: JsonObject = { metadata: { name: "b" }, roleRef: { kind: "ClusterRole", name: "edit" } };
    clusterRoleBinding.strategy.prepareForUpdate?.(changed, old);
    assert.deepEqual(clusterRoleBinding.strategy.validateUpdate?.(changed, old)?.map(formatFieldError), [
      `roleRef: Invalid value: {"apiGroup":"${GROUP}","kind":"ClusterRole","name":"edit"}: cannot change roleRef`,
    ]);
  });

  it("shows bindings as kubectl does", () => {
    const cells = roleBinding.schema.tableColumns?.map((c) => [
      c.name,
      c.priority,
      c.cell({
        roleRef: { kind: "ClusterRole", name: "view" },
        subjects: [
          { kind: "User", name: "a" },
          { kind: "User", name: "b" },
          { kind: "Group", name: "g" },
          { kind: "ServiceAccount", name: "sa", namespace: "ns" },
        ],
      }),
    ]);
    assert.deepEqual(cells, [
      ["Role", 0, "ClusterRole/view"],
      ["Age", 0, "<unknown>"],
      ["Users", 1, "a, b"],
      ["Groups", 1, "g"],
      ["ServiceAccounts", 1, "ns/sa"],
    ]);
    assert.equal(role.schema.tableColumns, undefined, "roles show Name and Created At");
  });

  describe("through a registry", () => {
    let served: ServedKind;
    let registry: Registry;
    beforeEach(async () => {
      served = await serveKind(clusterRoleBinding);
      registry = served.registry;
    });
    afterEach(() => served.stop());

    it("stores names with colons, refuses a changed roleRef and creates on update", async () => {
      const { object } = await registry.create(undefined, {
        metadata: { name: "system:masters-admin" },
        roleRef: { kind: "ClusterRole", name: "cluster-admin" },
        subjects: [{ kind: "Group", name: "system:masters" }],
      });
      assert.equal((object.roleRef as JsonObject).apiGroup, GROUP);
      await assert.rejects(
        registry.update(undefined, "system:masters-admin", (current) => ({
          ...current!,
          roleRef: { kind: "ClusterRole", name: "view" },
        })),
        (err: unknown) =>
          err instanceof RegistryError &&
          err.reason === "Invalid" &&
          err.causes.some((c) => c.field === "roleRef" && c.detail === "cannot change roleRef"),
      );
      await assert.rejects(
        registry.create(undefined, {
          metadata: { name: "a/b" },
          roleRef: { kind: "ClusterRole", name: "x" },
        }),
        (err: unknown) => err instanceof RegistryError && err.reason === "Invalid",
      );
      const put = await registry.update(undefined, "made-by-put", () => ({
        metadata: { name: "made-by-put" },
        roleRef: { kind: "ClusterRole", name: "view" },
      }));
      assert.equal(put.created, true);
    });
  });
});
