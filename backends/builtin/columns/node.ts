// Table columns of the node group: RuntimeClass.
import type { TableColumn } from "../../schema/resource-schema.ts";
import { age, col, type GroupColumns, str } from "./helpers.ts";

const runtimeClassColumns: TableColumn[] = [
  col("string", "Handler", "The container runtime configuration the class selects on the node.", (o) =>
    str(o, "handler"),
  ),
  age(),
];

export function nodeColumns(): GroupColumns {
  return new Map<string, readonly TableColumn[]>([["runtimeclasses", runtimeClassColumns]]);
}
