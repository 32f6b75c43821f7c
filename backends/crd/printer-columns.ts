// Table columns of a custom resource from its additionalPrinterColumns, as upstream's table
// convertor builds them: each cell is the first result of the column's JSONPath; string columns
// show it as kubectl's JSONPath printer does, other types keep the JSON value when it has the
// column's type (integers truncate numbers, `date` shows the age of an RFC 3339 time); anything
// else is an empty (null) cell. Without printer columns a CRD gets one: Age.

import { humanDuration } from "../builtin/human-duration.ts";
import { asObject, asString, type JsonObject } from "../common/json.ts";
import type { TableColumn } from "../schema/resource-schema.ts";
import { type JsonPath, parseJsonPath, printResult } from "./jsonpath.ts";

const COLUMN_TYPES = new Set<TableColumn["type"]>(["string", "integer", "number", "boolean", "date"]);
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

/** A `date` cell: the age of the time, `<unknown>` for an empty one, `<invalid>` for garbage. */
export function dateCell(value: string, now: number = Date.now()): string {
  if (value === "" || value === "null") return "<unknown>";
  if (!RFC3339.test(value)) return "<invalid>";
  const t = Date.parse(value);
  if (Number.isNaN(t)) return "<invalid>";
  return humanDuration(now - t);
}

function cellForJSONValue(type: string, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  switch (type) {
    case "integer":
      return typeof value === "number" ? Math.trunc(value) : null;
    case "number":
      return typeof value === "number" ? value : null;
    case "boolean":
      return typeof value === "boolean" ? value : null;
    case "string":
      return typeof value === "string" ? value : null;
    case "date":
      return typeof value === "string" ? dateCell(value) : null;
    default:
      return null;
  }
}

function cellOf(path: JsonPath, type: string): TableColumn["cell"] {
  return (object) => {
    let results: unknown[][];
    try {
      results = path.find(object);
    } catch {
      return null;
    }
    const first = results[0];
    if (!first || first.length === 0) return null;
    const value = first[0];
    return type === "string" ? printResult(value) : cellForJSONValue(type, value);
  };
}

const AGE_COLUMN: JsonObject = {
  name: "Age",
  type: "date",
  description: "How long ago the object was created (from metadata.creationTimestamp).",
  jsonPath: ".metadata.creationTimestamp",
};

/**
 * The columns after Name for a version's additionalPrinterColumns (Age when there are none). As
 * upstream, a column whose JSONPath does not parse ends the list.
 */
export function printerColumns(columns: readonly JsonObject[]): TableColumn[] {
  const defs = columns.length > 0 ? columns : [AGE_COLUMN];
  const out: TableColumn[] = [];
  for (const raw of defs) {
    const col = asObject(raw) ?? {};
    const jsonPath = asString(col.jsonPath);
    let path: JsonPath;
    try {
      path = parseJsonPath(`{${jsonPath}}`);
    } catch {
      break;
    }
    const type = asString(col.type);
    const description = asString(col.description);
    const format = asString(col.format);
    out.push({
      name: asString(col.name),
      type: COLUMN_TYPES.has(type as TableColumn["type"]) ? (type as TableColumn["type"]) : "string",
      ...(format !== "" ? { format } : {}),
      description:
        description !== ""
          ? description
          : `Custom resource definition column (in JSONPath format): ${jsonPath}`,
      priority: typeof col.priority === "number" ? col.priority : 0,
      cell: cellOf(path, type),
    });
  }
  return out;
}
