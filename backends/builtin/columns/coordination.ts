// Table columns of the coordination group: Lease.
import type { TableColumn } from "../../schema/resource-schema.ts";
import { age, col, type GroupColumns, str } from "./helpers.ts";

const leaseColumns: TableColumn[] = [
  col("string", "Holder", "Who holds the lease now.", (o) => str(o, "spec", "holderIdentity")),
  age(),
];

export function coordinationColumns(): GroupColumns {
  return new Map<string, readonly TableColumn[]>([["leases", leaseColumns]]);
}
