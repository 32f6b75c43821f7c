import assert from "node:assert/strict";
import { it } from "node:test";
import { naming } from "../../backends/naming/index.ts";
import { DEFAULT_GROUP_PRIORITY, groupPriority, sortGroupsByPriority } from "./priority.ts";

it("gives every built-in group its 1.27 priority under both naming presets", () => {
  for (const preset of ["cluster", "kubernetes"] as const) {
    const n = naming(preset);
    // Each served built-in group has a priority of its own (flow control's group is spelled
    // flowcontrol.cluster.io under one preset and flowcontrol.apiserver.k8s.io under the other).
    for (const [group, priority] of [
      [n.group("apiregistration"), 20000],
      ["apps", 17800],
      [n.group("rbac.authorization"), 17000],
      [n.group("flowcontrol"), 16100],
      [n.group("apiextensions"), 16700],
    ] as const) {
      assert.equal(groupPriority(n, group), priority, `${preset} ${group}`);
    }
    assert.equal(groupPriority(n, "example.com"), DEFAULT_GROUP_PRIORITY);
    assert.deepEqual(sortGroupsByPriority(n, ["example.com", n.group("flowcontrol"), "apps"]), [
      "apps",
      n.group("flowcontrol"),
      "example.com",
    ]);
  }
});
