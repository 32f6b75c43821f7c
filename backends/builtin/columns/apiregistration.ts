// Table columns of the apiregistration group: APIService (upstream's aggregator defines them
// beside its storage rather than with the other printers).
import type { TableColumn } from "../../schema/resource-schema.ts";
import { age, arr, asObject, col, type GroupColumns, type JsonObject, spec, str } from "./helpers.ts";

/** The Available condition's status, with its reason when it is not True; Unknown without one. */
function available(service: JsonObject): string {
  const condition = arr(service, "status", "conditions")
    .map((c) => asObject(c) ?? {})
    .find((c) => str(c, "type") === "Available");
  if (!condition) return "Unknown";
  const status = str(condition, "status");
  const reason = str(condition, "reason");
  return status !== "True" && reason !== "" ? `${status} (${reason})` : status;
}

const apiServiceColumns: TableColumn[] = [
  col("string", "Service", "The service that serves the API, as namespace/name, or Local.", (o) => {
    const service = asObject(spec(o).service);
    return service ? `${str(service, "namespace")}/${str(service, "name")}` : "Local";
  }),
  col("string", "Available", "Whether the API is reachable, with the reason when it is not.", available),
  age(),
];

export function apiregistrationColumns(): GroupColumns {
  return new Map<string, readonly TableColumn[]>([["apiservices", apiServiceColumns]]);
}
