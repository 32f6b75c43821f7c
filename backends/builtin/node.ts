// Node (core/v1, cluster-scoped), minimal: a node agent may register with its status filled in;
// afterwards the main resource keeps status and the `status` subresource keeps spec. The full
// Node schema and validation come with the type-system work.

import { asArray, asObject, asString, cloneJson, type JsonObject, metadataOf } from "../common/json.ts";
import type { Naming } from "../naming/naming.ts";
import type { Strategy } from "../registry/strategy.ts";
import { validateMetadataFinalizerNames } from "../validation/object-meta.ts";
import { ageColumn } from "./human-duration.ts";
import { ALL_VERBS, type BuiltinKind, CORE_V1, column } from "./kind.ts";

const NODE_TYPES = {
  spec: "object",
  "spec.podCIDR": "string",
  "spec.podCIDRs": "[]string",
  "spec.providerID": "string",
  "spec.unschedulable": "bool",
  "spec.taints": "[]object",
  status: "object",
  "status.phase": "string",
  "status.conditions": "[]object",
  "status.addresses": "[]object",
  "status.nodeInfo": "object",
  "status.nodeInfo.kubeletVersion": "string",
} as const;

function specOf(node: JsonObject): JsonObject {
  return asObject(node.spec) ?? {};
}

function nodeInfo(node: JsonObject): JsonObject {
  return asObject(asObject(node.status)?.nodeInfo) ?? {};
}

/** The field-selector values of a node (every key present, also for an empty object). */
export function nodeSelectableFields(node: JsonObject): Record<string, string> {
  return { "spec.unschedulable": specOf(node).unschedulable === true ? "true" : "false" };
}

/** Ready or NotReady from the Ready condition (Unknown without one), plus cordoning. */
export function nodeStatus(node: JsonObject): string {
  const parts: string[] = [];
  for (const c of asArray(asObject(node.status)?.conditions)) {
    const condition = asObject(c);
    // The last Ready condition wins, as a map keyed by type would have it.
    if (asString(condition?.type) === "Ready") {
      parts[0] = asString(condition?.status) === "True" ? "Ready" : "NotReady";
    }
  }
  if (parts.length === 0) parts.push("Unknown");
  if (specOf(node).unschedulable === true) parts.push("SchedulingDisabled");
  return parts.join(",");
}

/**
 * The roles named by `node-role.<domain>/<role>` labels and by the older `<domain>/role`
 * label's value, sorted and without repeats.
 */
export function nodeRoles(node: JsonObject, naming: Naming): string[] {
  const prefix = `node-role.${naming.labelDomain}/`;
  const roleLabel = naming.label("role");
  const roles = new Set<string>();
  for (const [key, value] of Object.entries(asObject(metadataOf(node).labels) ?? {})) {
    if (key.startsWith(prefix) && key.length > prefix.length) roles.add(key.slice(prefix.length));
    else if (key === roleLabel && asString(value) !== "") roles.add(asString(value));
  }
  return [...roles].sort();
}

function address(node: JsonObject, type: string): string {
  for (const a of asArray(asObject(node.status)?.addresses)) {
    const o = asObject(a);
    if (asString(o?.type) === type) return asString(o?.address);
  }
  return "<none>";
}

function copyFrom(object: JsonObject, old: JsonObject, key: string): void {
  if (old[key] === undefined) delete object[key];
  else object[key] = cloneJson(old[key]);
}

export function nodeKind(naming: Naming): BuiltinKind {
  const strategy: Strategy = {
    // No prepareForCreate: a registering node may send its status along.
    prepareForUpdate(object, old) {
      copyFrom(object, old, "status");
    },
    validate: (object) => validateMetadataFinalizerNames(object.metadata, naming),
    validateUpdate: (object) => validateMetadataFinalizerNames(object.metadata, naming),
    fieldTypes: NODE_TYPES,
    nameRule: "dns-subdomain",
    // No knownFields: every field is accepted until strict field validation of Nodes arrives
    // with the type-system work.
  };

  const status: Strategy = {
    prepareForUpdate(object, old) {
      copyFrom(object, old, "spec");
    },
    validateUpdate: (object) => validateMetadataFinalizerNames(object.metadata, naming),
    fieldTypes: NODE_TYPES,
    nameRule: "dns-subdomain",
  };

  const orUnknown = (value: unknown) => asString(value) || "<unknown>";

  return {
    schema: {
      group: "",
      versions: CORE_V1,
      plural: "nodes",
      singular: "node",
      kind: "Node",
      listKind: "NodeList",
      shortNames: ["no"],
      categories: [],
      namespaced: false,
      verbs: ALL_VERBS,
      subresources: ["status", "proxy"],
      allowCreateOnUpdate: false,
      selectableFields: nodeSelectableFields,
      tableColumns: [
        column("Status", "Whether the node is ready for pods, and whether it is cordoned.", nodeStatus),
        column(
          "Roles",
          "The roles the node's labels give it.",
          (o) => nodeRoles(o, naming).join(",") || "<none>",
        ),
        ageColumn(),
        column("Version", "The version of the node agent.", (o) => asString(nodeInfo(o).kubeletVersion)),
        column("Internal-IP", "The node's first internal address.", (o) => address(o, "InternalIP"), 1),
        column("External-IP", "The node's first external address.", (o) => address(o, "ExternalIP"), 1),
        column(
          "OS-Image",
          "The operating system the node reports.",
          (o) => orUnknown(nodeInfo(o).osImage),
          1,
        ),
        column(
          "Kernel-Version",
          "The kernel version the node reports.",
          (o) => orUnknown(nodeInfo(o).kernelVersion),
          1,
        ),
        column(
          "Container-Runtime",
          "The container runtime and version the node reports.",
          (o) => orUnknown(nodeInfo(o).containerRuntimeVersion),
          1,
        ),
      ],
    },
    strategy,
    subresourceStrategies: { status },
  };
}
