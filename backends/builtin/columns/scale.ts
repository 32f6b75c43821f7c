// Table columns of the autoscaling/v1 Scale that the workloads' `scale` subresource returns, as
// upstream 1.27's printer defines them (its Name column carries no `name` format).
import type { TableColumn } from "../../schema/resource-schema.ts";
import { age, col, int, meta, spec, status } from "./helpers.ts";

export const SCALE_COLUMNS: readonly TableColumn[] = [
  col("string", "Name", "The name of the scaled object.", (o) => meta(o).name ?? ""),
  col("integer", "Desired", "The replica count asked for.", (o) => int(spec(o).replicas)),
  col("integer", "Available", "The replica count last observed.", (o) => int(status(o).replicas)),
  age(),
];
