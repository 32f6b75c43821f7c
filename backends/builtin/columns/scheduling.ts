// Table columns of the scheduling group: PriorityClass.
import type { TableColumn } from "../../schema/resource-schema.ts";
import { age, bool, col, type GroupColumns, int } from "./helpers.ts";

const priorityClassColumns: TableColumn[] = [
  col("integer", "Value", "The priority pods of this class get; higher goes first.", (o) => int(o.value)),
  col("boolean", "Global-Default", "Whether pods without a class get this one.", (o) =>
    bool(o.globalDefault),
  ),
  age(),
];

export function schedulingColumns(): GroupColumns {
  return new Map<string, readonly TableColumn[]>([["priorityclasses", priorityClassColumns]]);
}
