// What the built-in catalog gives per kind: its description and its lifecycle hooks.
import type { Strategy } from "../registry/strategy.ts";
import type { ResourceSchema, ResourceVersion, TableColumn, Verb } from "../schema/resource-schema.ts";

export interface BuiltinKind {
  readonly schema: ResourceSchema;
  readonly strategy: Strategy;
  /**
   * Strategies of subresources that write the object (a Namespace's `status` and `finalize`),
   * by subresource name. Absent: the kind has none.
   */
  readonly subresourceStrategies?: Readonly<Record<string, Strategy>>;
}

/** core/v1, the only version of the core kinds. */
export const CORE_V1: readonly ResourceVersion[] = [{ name: "v1", served: true, storage: true }];

export const ALL_VERBS: readonly Verb[] = [
  "create",
  "delete",
  "deletecollection",
  "get",
  "list",
  "patch",
  "update",
  "watch",
];

/** A string-typed table column. */
export function column(
  name: string,
  description: string,
  cell: TableColumn["cell"],
  priority = 0,
): TableColumn {
  return { name, type: "string", description, priority, cell };
}
