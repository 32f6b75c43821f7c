// Table columns of the apps group: Deployment, StatefulSet, DaemonSet, ReplicaSet and
// ControllerRevision.
import type { TableColumn } from "../../schema/resource-schema.ts";
import {
  age,
  arr,
  asObject,
  asString,
  col,
  formatLabelSelector,
  formatLabels,
  type GroupColumns,
  int,
  type JsonObject,
  obj,
  selectorOrInvalid,
  spec,
  status,
  templateColumns,
} from "./helpers.ts";

const templateSpec = (o: JsonObject): JsonObject => obj(o, "spec", "template", "spec");

const selectorColumn = (format: (selector: unknown) => string): TableColumn =>
  col(
    "string",
    "Selector",
    "The label selector of the pods the controller manages.",
    (o) => format(spec(o).selector),
    {
      priority: 1,
    },
  );

const deploymentColumns: TableColumn[] = [
  col(
    "string",
    "Ready",
    "Ready pods out of the desired number.",
    (o) => `${int(status(o).readyReplicas)}/${int(spec(o).replicas)}`,
  ),
  // Upstream declares these two as strings and fills them with numbers.
  col("string", "Up-to-date", "Pods already running the latest pod template.", (o) =>
    int(status(o).updatedReplicas),
  ),
  col("string", "Available", "Pods ready for at least the minimum ready time.", (o) =>
    int(status(o).availableReplicas),
  ),
  age(),
  ...templateColumns(templateSpec),
  selectorColumn(selectorOrInvalid),
];

const statefulSetColumns: TableColumn[] = [
  col(
    "string",
    "Ready",
    "Ready pods out of the desired number.",
    (o) => `${int(status(o).readyReplicas)}/${int(spec(o).replicas)}`,
  ),
  age(),
  ...templateColumns(templateSpec),
];

const daemonSetColumns: TableColumn[] = [
  col("integer", "Desired", "Nodes that should run the daemon pod.", (o) =>
    int(status(o).desiredNumberScheduled),
  ),
  col("integer", "Current", "Nodes running at least one daemon pod.", (o) =>
    int(status(o).currentNumberScheduled),
  ),
  col("integer", "Ready", "Nodes whose daemon pod is ready.", (o) => int(status(o).numberReady)),
  col("integer", "Up-to-date", "Nodes running the latest pod template.", (o) =>
    int(status(o).updatedNumberScheduled),
  ),
  col("integer", "Available", "Nodes whose daemon pod has been ready long enough.", (o) =>
    int(status(o).numberAvailable),
  ),
  col("string", "Node Selector", "The node labels a node needs to run the daemon pod.", (o) =>
    formatLabels(templateSpec(o).nodeSelector),
  ),
  age(),
  ...templateColumns(templateSpec),
  selectorColumn(formatLabelSelector),
];

const replicaSetColumns: TableColumn[] = [
  col("integer", "Desired", "How many pods the replica set should run.", (o) => int(spec(o).replicas)),
  col("integer", "Current", "How many pods the replica set runs now.", (o) => int(status(o).replicas)),
  col("integer", "Ready", "How many of its pods are ready.", (o) => int(status(o).readyReplicas)),
  age(),
  ...templateColumns(templateSpec),
  selectorColumn(formatLabelSelector),
];

/** `kind.group/name` (lower case) of the controlling owner, `<none>` without one. */
function controllerOf(o: JsonObject): string {
  const owner = arr(o, "metadata", "ownerReferences")
    .map((r) => asObject(r) ?? {})
    .find((r) => r.controller === true);
  if (!owner) return "<none>";
  const name = asString(owner.name);
  const kind = asString(owner.kind);
  const apiVersion = asString(owner.apiVersion);
  const slash = apiVersion.indexOf("/");
  // "v1" is the core group; "group/version" names a group.
  const group = slash >= 0 ? apiVersion.slice(0, slash) : "";
  if (group === "" && kind === "") return name;
  return `${(group === "" ? kind : `${kind}.${group}`).toLowerCase()}/${name}`;
}

const controllerRevisionColumns: TableColumn[] = [
  col("string", "Controller", "The controller that owns the revision, as kind.group/name.", controllerOf),
  // A number in a column upstream declares as a string.
  col("string", "Revision", "The revision's sequence number.", (o) => int(o.revision)),
  age(),
];

export function appsColumns(): GroupColumns {
  return new Map<string, readonly TableColumn[]>([
    ["deployments", deploymentColumns],
    ["statefulsets", statefulSetColumns],
    ["daemonsets", daemonSetColumns],
    ["replicasets", replicaSetColumns],
    ["controllerrevisions", controllerRevisionColumns],
  ]);
}
