// Table columns of the flowcontrol group: FlowSchema and PriorityLevelConfiguration (v1beta3).
import type { TableColumn } from "../../schema/resource-schema.ts";
import {
  age,
  arr,
  asObject,
  col,
  type GroupColumns,
  int,
  type JsonObject,
  obj,
  spec,
  str,
} from "./helpers.ts";

/** The status of the Dangling condition (the priority level is missing), `?` without one. */
function missingPriorityLevel(schema: JsonObject): string {
  const condition = arr(schema, "status", "conditions")
    .map((c) => asObject(c) ?? {})
    .find((c) => str(c, "type") === "Dangling");
  return condition ? str(condition, "status") : "?";
}

const flowSchemaColumns: TableColumn[] = [
  col("string", "PriorityLevel", "The priority level requests of the schema are handled at.", (o) =>
    str(o, "spec", "priorityLevelConfiguration", "name"),
  ),
  // A number in a column upstream declares as a string.
  col("string", "MatchingPrecedence", "The schema's rank among schemas; lower matches first.", (o) =>
    int(spec(o).matchingPrecedence),
  ),
  col(
    "string",
    "DistinguisherMethod",
    "How requests are divided into flows: ByUser, ByNamespace or <none>.",
    (o) => {
      const method = asObject(spec(o).distinguisherMethod);
      return method ? str(method, "type") : "<none>";
    },
  ),
  age(),
  col(
    "string",
    "MissingPL",
    "Whether the named priority level is missing (True, False, or ? before it is checked).",
    missingPriorityLevel,
  ),
];

/** A limited level's setting, `<none>` for an exempt level or one without queuing. */
function limited(o: JsonObject, read: (limited: JsonObject) => unknown): unknown {
  const l = asObject(spec(o).limited);
  return l ? read(l) : "<none>";
}

function queuing(o: JsonObject, key: string): unknown {
  return limited(o, (l) => {
    const q = asObject(obj(l, "limitResponse").queuing);
    return q ? int(q[key]) : "<none>";
  });
}

const priorityLevelColumns: TableColumn[] = [
  col("string", "Type", "Limited, or Exempt for requests never held back.", (o) => str(o, "spec", "type")),
  col("string", "NominalConcurrencyShares", "The level's share of the server's concurrency.", (o) =>
    limited(o, (l) => int(l.nominalConcurrencyShares)),
  ),
  col("string", "Queues", "How many queues the level has.", (o) => queuing(o, "queues")),
  col("string", "HandSize", "How many queues each flow is dealt when it is shuffle sharded.", (o) =>
    queuing(o, "handSize"),
  ),
  col("string", "QueueLengthLimit", "The most requests one queue holds.", (o) =>
    queuing(o, "queueLengthLimit"),
  ),
  age(),
];

export function flowcontrolColumns(): GroupColumns {
  return new Map<string, readonly TableColumn[]>([
    ["flowschemas", flowSchemaColumns],
    ["prioritylevelconfigurations", priorityLevelColumns],
  ]);
}
