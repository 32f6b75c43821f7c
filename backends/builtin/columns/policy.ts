// Table columns of the policy group: PodDisruptionBudget.
import type { TableColumn } from "../../schema/resource-schema.ts";
import { age, col, type GroupColumns, int, intOrString, present, spec, status } from "./helpers.ts";

const orNA = (object: Record<string, unknown>, key: string): string =>
  present(object, key) ? intOrString(object[key]) : "N/A";

const pdbColumns: TableColumn[] = [
  col("string", "Min Available", "Pods that must stay available, as a count or a percentage.", (o) =>
    orNA(spec(o), "minAvailable"),
  ),
  col("string", "Max Unavailable", "Pods that may be unavailable, as a count or a percentage.", (o) =>
    orNA(spec(o), "maxUnavailable"),
  ),
  col("integer", "Allowed Disruptions", "How many pods may be evicted right now.", (o) =>
    int(status(o).disruptionsAllowed),
  ),
  age(),
];

export function policyColumns(): GroupColumns {
  return new Map<string, readonly TableColumn[]>([["poddisruptionbudgets", pdbColumns]]);
}
