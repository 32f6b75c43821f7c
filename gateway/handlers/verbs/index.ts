// The verbs of stored resources, by service verb: the local backend's table.
import type { VerbHandler } from "../env.ts";
import { create } from "./create.ts";
import { del } from "./delete.ts";
import { deletecollection } from "./deletecollection.ts";
import { get } from "./get.ts";
import { list } from "./list.ts";
import { patch } from "./patch.ts";
import { update } from "./update.ts";
import { watch } from "./watch.ts";

export const VERBS: ReadonlyMap<string, VerbHandler> = new Map([
  ["get", get],
  ["list", list],
  ["watch", watch],
  ["create", create],
  ["update", update],
  ["patch", patch],
  ["delete", del],
  ["deletecollection", deletecollection],
]);

/** Verbs a kind may leave out (its schema's `verbs` says which it serves). */
export const OPTIONAL_VERBS: ReadonlySet<string> = new Set([
  "create",
  "update",
  "patch",
  "delete",
  "deletecollection",
]);
