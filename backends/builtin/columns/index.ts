// The table columns (`kubectl get`) of the built-in catalog kinds, as upstream 1.27's printers
// define them. The server adds the Name column in front (a kind that lists its own Name column,
// as StorageClass does, keeps it); an empty list stands for upstream's default table (Name and
// Created At).
import type { Naming } from "../../naming/naming.ts";
import type { TableColumn } from "../../schema/resource-schema.ts";
import { admissionRegistrationColumns } from "./admissionregistration.ts";
import { apiextensionsColumns } from "./apiextensions.ts";
import { apiregistrationColumns } from "./apiregistration.ts";
import { appsColumns } from "./apps.ts";
import { autoscalingColumns } from "./autoscaling.ts";
import { batchColumns } from "./batch.ts";
import { certificatesColumns } from "./certificates.ts";
import { coordinationColumns } from "./coordination.ts";
import { coreColumns } from "./core.ts";
import { discoveryColumns } from "./discovery.ts";
import { flowcontrolColumns } from "./flowcontrol.ts";
import type { GroupColumns } from "./helpers.ts";
import { networkingColumns } from "./networking.ts";
import { nodeColumns } from "./node.ts";
import { policyColumns } from "./policy.ts";
import { schedulingColumns } from "./scheduling.ts";
import { storageColumns } from "./storage.ts";

/**
 * The columns of a built-in kind, by its group's short name (`""` for core, `apps`,
 * `networking`, ...) and its plural; undefined for kinds not covered here.
 */
export function builtinColumns(
  naming: Naming,
): (group: string, plural: string) => readonly TableColumn[] | undefined {
  const groups = new Map<string, GroupColumns>([
    ["", coreColumns(naming)],
    ["apps", appsColumns()],
    ["batch", batchColumns()],
    ["autoscaling", autoscalingColumns()],
    ["policy", policyColumns()],
    ["networking", networkingColumns()],
    ["discovery", discoveryColumns()],
    ["coordination", coordinationColumns()],
    ["node", nodeColumns()],
    ["scheduling", schedulingColumns()],
    ["storage", storageColumns(naming)],
    ["certificates", certificatesColumns()],
    ["admissionregistration", admissionRegistrationColumns()],
    ["apiextensions", apiextensionsColumns()],
    ["apiregistration", apiregistrationColumns()],
    ["flowcontrol", flowcontrolColumns()],
  ]);
  return (group, plural) => groups.get(group)?.get(plural);
}
