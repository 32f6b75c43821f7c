// The object a response carries for the negotiated output: the result as it is, or its Table or
// PartialObjectMetadata(List) conversion. A Status passes through unconverted, as upstream does.
import type { Naming } from "../../backends/naming/index.ts";
import type { TableColumn } from "../../backends/schema/index.ts";
import type { OutputChoice } from "./media-type.ts";
import { isList, toPartialObjectMetadata, toPartialObjectMetadataList } from "./partial-metadata.ts";
import { toTable } from "./table.ts";

type Obj = Record<string, unknown>;

export interface TransformContext {
  readonly naming: Naming;
  /** The kind's table columns (ResourceSchema.tableColumns). */
  readonly columns?: readonly TableColumn[];
}

const guardedColumns = new WeakMap<readonly TableColumn[], readonly TableColumn[]>();

/**
 * The columns with cells that cannot throw: a cell that cannot be computed is empty (as upstream
 * leaves a custom resource's), never a failure of a write that has already committed.
 */
function guarded(columns: readonly TableColumn[]): readonly TableColumn[] {
  let out = guardedColumns.get(columns);
  if (!out) {
    out = columns.map((c) => ({
      ...c,
      cell: (object: Obj) => {
        try {
          return c.cell(object);
        } catch {
          return null;
        }
      },
    }));
    guardedColumns.set(columns, out);
  }
  return out;
}

/** Convert a get/list/write result for the output; throws a 406 ApiError for a list/object mismatch. */
export function transformResult(result: Obj, output: OutputChoice, context: TransformContext): Obj {
  if (result.kind === "Status") return result;
  const target = { naming: context.naming, version: output.metaVersion ?? "v1" };
  switch (output.kind) {
    case "table": {
      const list = isList(result);
      const metadata = (result.metadata ?? {}) as Obj;
      return toTable({
        items: list ? (result.items as Obj[]) : [result],
        listMeta: list
          ? (metadata as { resourceVersion?: string; continue?: string; remainingItemCount?: number })
          : typeof metadata.resourceVersion === "string"
            ? { resourceVersion: metadata.resourceVersion }
            : {},
        ...(context.columns ? { columns: guarded(context.columns) } : {}),
        includeObject: output.includeObject ?? "Metadata",
        tableVersion: output.tableVersion ?? target.version,
        naming: context.naming,
      });
    }
    case "partial-metadata":
      return toPartialObjectMetadata(result, target);
    case "partial-metadata-list":
      return toPartialObjectMetadataList(result, target);
    default:
      return result;
  }
}
