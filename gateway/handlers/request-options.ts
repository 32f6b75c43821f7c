// What the resource handlers read from a request besides its body: query options checked as
// upstream checks them, the field manager's name, selectors, and whether the body is large.
import { LARGE_OBJECT_CHARS } from "../../backends/common/turn.ts";
import type { JsonObject } from "../../backends/registry/index.ts";
import {
  type FieldSelector,
  type LabelSelector,
  parseFieldSelector,
  parseLabelSelector,
} from "../../backends/selection/index.ts";
import { managerName, validateFieldManager } from "../fieldmanager/index.ts";
import type { RequestContext } from "../pipeline/index.ts";
import { errors } from "../request/api-error.ts";
import type { ServedResource } from "../routing/resources.ts";
import type { HandlerEnv } from "./env.ts";

export const APPLY_PATCH = "application/apply-patch+yaml";
export const STRATEGIC_PATCH = "application/strategic-merge-patch+json";
export const PATCH_TYPES = [
  "application/json-patch+json",
  "application/merge-patch+json",
  STRATEGIC_PATCH,
  APPLY_PATCH,
];
/** Custom resources have no patch strategies, so no strategic merge patch (upstream's 415). */
export const CUSTOM_PATCH_TYPES = [
  "application/json-patch+json",
  "application/merge-patch+json",
  APPLY_PATCH,
];

export function query(ctx: RequestContext, name: string): string | undefined {
  return ctx.url.searchParams.get(name) ?? undefined;
}

export function intParam(ctx: RequestContext, name: string): number | undefined {
  const raw = query(ctx, name);
  if (raw === undefined || raw === "") return undefined;
  if (!/^-?\d+$/.test(raw)) throw errors.badRequest(`invalid ${name} parameter: "${raw}" is not an integer`);
  return Number(raw);
}

export function dryRun(ctx: RequestContext): boolean {
  const values = ctx.url.searchParams.getAll("dryRun");
  if (values.length === 0) return false;
  for (const v of values) {
    if (v !== "All" && v !== "") {
      throw errors.badRequest(`dryRun: Unsupported value: "${v}": supported values: "All"`);
    }
  }
  return true;
}

/**
 * The request's selectors; `pinnedName` adds `metadata.name=<name>` (a watch on one object is a
 * watch of the collection pinned to its name).
 */
export function selectors(
  ctx: RequestContext,
  served: ServedResource,
  pinnedName?: string,
): { labelSelector?: LabelSelector; fieldSelector?: FieldSelector } {
  const out: { labelSelector?: LabelSelector; fieldSelector?: FieldSelector } = {};
  const label = query(ctx, "labelSelector");
  if (label) out.labelSelector = parseLabelSelector(label);
  const fieldText = [query(ctx, "fieldSelector"), pinnedName ? `metadata.name=${pinnedName}` : undefined]
    .filter(Boolean)
    .join(",");
  if (fieldText) {
    const supported = new Set([
      "metadata.name",
      "metadata.namespace",
      ...Object.keys(served.schema.selectableFields?.({}) ?? {}),
    ]);
    out.fieldSelector = parseFieldSelector(fieldText, supported);
  }
  return out;
}

/** Whether the request's body is large enough for its write to give other requests turns. */
export function largeBody(ctx: RequestContext): boolean {
  const body = ctx.req.body;
  return Buffer.isBuffer(body) && body.length >= LARGE_OBJECT_CHARS;
}

/** The write's field manager name, checked as upstream checks its option structs. */
export function writeManager(
  ctx: RequestContext,
  env: HandlerEnv,
  options: "CreateOptions" | "UpdateOptions" | "PatchOptions",
  patchType?: string,
): { manager: string; force: boolean } {
  const param = query(ctx, "fieldManager");
  const causes = validateFieldManager(param ?? "");
  let force = false;
  if (options === "PatchOptions") {
    const raw = query(ctx, "force");
    if (patchType !== APPLY_PATCH) {
      if (raw !== undefined)
        causes.unshift({
          field: "force",
          type: "FieldValueForbidden",
          detail: "may not be specified for non-apply patch",
        });
    } else {
      if (!param)
        causes.unshift({
          field: "fieldManager",
          type: "FieldValueRequired",
          detail: "is required for apply patch",
        });
      if (raw !== undefined && raw !== "true" && raw !== "false")
        throw errors.badRequest(`invalid force parameter: "${raw}" is not a boolean`);
      force = raw === "true";
    }
  }
  if (causes.length > 0) throw errors.invalid({ group: env.naming.group("meta"), kind: options }, "", causes);
  return { manager: managerName(param, ctx.req.headers["user-agent"]), force };
}

/** The managedFields a body carries (they may replace or reset the recorded ones). */
export function sentManagedFields(object: JsonObject): unknown {
  const m = object.metadata;
  return typeof m === "object" && m !== null ? (m as JsonObject).managedFields : undefined;
}

export function nameOf(object: JsonObject): string {
  const m = object.metadata;
  return typeof m === "object" && m !== null ? String((m as JsonObject).name ?? "") : "";
}
