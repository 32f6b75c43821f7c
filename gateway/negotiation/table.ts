// The Table representation (SPEC "Table representation"): what `kubectl get` asks for and prints.
// Kinds without their own columns get two: Name and Created At.
//
// Body, in the upstream encoding's field order: kind, apiVersion, metadata (list metadata, or the
// object's resourceVersion for a single object), columnDefinitions (null when headers are left out,
// as on every watch event after the first), rows [{cells, object}]. A row's object follows the
// `includeObject` parameter: Metadata (the default) is a PartialObjectMetadata in the Table's group
// version, Object the object itself, None a null.
import type { Naming } from "../../backends/naming/index.ts";
import type { TableColumn } from "../../backends/schema/index.ts";
import type { IncludeObject, MetaVersion } from "./media-type.ts";
import { listMeta, partialObjectMetadata } from "./partial-metadata.ts";

type Obj = Record<string, unknown>;

/** A timestamp cell: RFC 3339 in UTC, whole seconds; a missing time is Go's zero time. */
export function formatTimestamp(value: unknown): string {
  if (typeof value === "string") {
    if (RFC3339_UTC_SECONDS.test(value)) return value;
    const ms = Date.parse(value);
    if (!Number.isNaN(ms)) return `${new Date(ms).toISOString().slice(0, 19)}Z`;
  }
  return ZERO_TIME;
}
const RFC3339_UTC_SECONDS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;
const ZERO_TIME = "0001-01-01T00:00:00Z";

function metadataOf(object: Obj): Obj {
  const m = object.metadata;
  return typeof m === "object" && m !== null ? (m as Obj) : {};
}

export const NAME_COLUMN: TableColumn = {
  name: "Name",
  type: "string",
  format: "name",
  description:
    "The object's name, unique among objects of its kind in its namespace (or in the cluster for cluster-scoped kinds).",
  priority: 0,
  cell: (object) => {
    const name = metadataOf(object).name;
    return typeof name === "string" ? name : "";
  },
};

export const CREATED_AT_COLUMN: TableColumn = {
  name: "Created At",
  type: "date",
  description: "When the server created the object, in RFC 3339 form and UTC.",
  priority: 0,
  cell: (object) => formatTimestamp(metadataOf(object).creationTimestamp),
};

/** The default columns, for kinds without their own. */
export const DEFAULT_COLUMNS: readonly TableColumn[] = [NAME_COLUMN, CREATED_AT_COLUMN];

/**
 * The columns of a kind's table: the defaults when it declares none; otherwise Name followed by
 * its own columns (Name is not repeated when the kind already starts with it).
 */
export function tableColumns(columns: readonly TableColumn[] | undefined): readonly TableColumn[] {
  if (!columns || columns.length === 0) return DEFAULT_COLUMNS;
  if (columns[0]!.name === "Name") return columns;
  return [NAME_COLUMN, ...columns];
}

/** columnDefinitions entries, in the upstream field order (format and description always present). */
export function columnDefinitions(columns: readonly TableColumn[]): Obj[] {
  return columns.map((c) => ({
    name: c.name,
    type: c.type,
    format: c.format ?? "",
    description: c.description,
    priority: c.priority,
  }));
}

export interface TableInput {
  readonly items: readonly Obj[];
  /** For a list, its metadata; for a single object, `{ resourceVersion }` of that object. */
  readonly listMeta?: { resourceVersion?: string; continue?: string; remainingItemCount?: number };
  /** The kind's own columns (ResourceSchema.tableColumns); absent for the default table. */
  readonly columns?: readonly TableColumn[];
  readonly includeObject: IncludeObject;
  readonly tableVersion: MetaVersion;
  readonly naming: Naming;
  /** Whether to include columnDefinitions; default true. A watch sends them with the first event only. */
  readonly headers?: boolean;
}

function cellValue(value: unknown): unknown {
  return value === undefined ? null : value;
}

export function toTable(input: TableInput): Obj {
  const apiVersion = `${input.naming.group("meta")}/${input.tableVersion}`;
  const columns = tableColumns(input.columns);
  const rows: Obj[] = [];
  for (const item of input.items) {
    const cells = columns.map((c) => cellValue(c.cell(item)));
    let object: unknown;
    switch (input.includeObject) {
      case "Object":
        object = item;
        break;
      case "None":
        object = null;
        break;
      default:
        object = partialObjectMetadata(item, apiVersion);
    }
    rows.push({ cells, object });
  }
  return {
    kind: "Table",
    apiVersion,
    metadata: listMeta(input.listMeta),
    columnDefinitions: input.headers === false ? null : columnDefinitions(columns),
    // Upstream's default table has no rows array for an empty list; kinds with their own columns
    // always have one.
    rows: rows.length === 0 && !input.columns?.length ? null : rows,
  };
}
