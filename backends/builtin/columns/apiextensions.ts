// Table columns of the apiextensions group. Upstream serves CustomResourceDefinitions with the
// default table (Name and Created At): an empty list of the kind's own columns says so.
import type { TableColumn } from "../../schema/resource-schema.ts";
import type { GroupColumns } from "./helpers.ts";

export function apiextensionsColumns(): GroupColumns {
  return new Map<string, readonly TableColumn[]>([["customresourcedefinitions", []]]);
}
