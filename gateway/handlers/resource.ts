// The routing stage's end: one handler per verb over the registry (DESIGN.md: handlers never
// touch storage). Request options are parsed and checked here; the registry owns the lifecycle.

import { cloneJson } from "../../backends/common/json.ts";
import { LARGE_OBJECT_CHARS, turnIf } from "../../backends/common/turn.ts";
import type { Naming } from "../../backends/naming/index.ts";
import { type JsonObject, RegistryError } from "../../backends/registry/index.ts";
import {
  type FieldSelector,
  type LabelSelector,
  parseFieldSelector,
  parseLabelSelector,
} from "../../backends/selection/index.ts";
import type { AdmissionChain } from "../admission/chain.ts";
import { type RequestAdmission, type RequestAdmissionInput, requestAdmission } from "../admission/request.ts";
import { noteDeprecatedRequest } from "../deprecation.ts";
import { fieldManagerFor, managerName, validateFieldManager } from "../fieldmanager/index.ts";
import type { GatewayMetrics } from "../metrics.ts";
import type { RequestContext } from "../pipeline/index.ts";
import { errors } from "../request/api-error.ts";
import type { RequestInfo } from "../request/request-info.ts";
import type { ResourceTable, ServedResource, VirtualResource } from "../routing/resources.ts";
import { type Codec, type OutputChoice, queryFlag } from "./codec.ts";
import type { DeleteOptionsBody } from "./delete-options.ts";
import { handleScale } from "./scale.ts";
import { serveWatch } from "./watch.ts";

export interface HandlerEnv {
  readonly resources: ResourceTable;
  readonly naming: Naming;
  readonly codec: Codec;
  readonly watchListEnabled: boolean;
  /** The admission plugins every write goes through; none when absent. */
  readonly admission?: AdmissionChain;
  /**
   * Subresources that answer `create` with a computed object of another kind (a ServiceAccount's
   * `token`), by `<group>/<resource>/<subresource>`; the virtual resource's schema names the body
   * kind and its version.
   */
  readonly subresourceActions?: ReadonlyMap<string, VirtualResource>;
  /**
   * Checks a write against the object it would store, before it is stored (RBAC's escalation
   * rules today; the admission chain later). Runs inside the update loop against the current
   * object; throws an ApiError to refuse.
   */
  readonly checkWrite?: (ctx: RequestContext, write: WriteCheck) => Promise<void>;
  /** Where requests to deprecated versions are counted. */
  readonly metrics?: GatewayMetrics;
  /**
   * Asks the authorizer about the request with another verb (a PATCH or PUT that creates
   * needs `create` too); throws the 403 when it is not allowed.
   */
  readonly authorizeVerb?: (ctx: RequestContext, verb: string) => Promise<void>;
}

export interface WriteCheck {
  readonly verb: "create" | "update";
  readonly served: ServedResource;
  readonly namespace: string | undefined;
  readonly subresource: string | undefined;
  readonly object: JsonObject;
  readonly old: JsonObject | undefined;
}

const PATCH_TYPES = [
  "application/json-patch+json",
  "application/merge-patch+json",
  "application/strategic-merge-patch+json",
  "application/apply-patch+yaml",
];
const APPLY_PATCH = "application/apply-patch+yaml";
const STRATEGIC_PATCH = "application/strategic-merge-patch+json";
/** Custom resources have no patch strategies, so no strategic merge patch (upstream's 415). */
const CUSTOM_PATCH_TYPES = ["application/json-patch+json", "application/merge-patch+json", APPLY_PATCH];

/** The write's field manager name, checked as upstream checks its option structs. */
function writeManager(
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

function sentManagedFields(object: JsonObject): unknown {
  const m = object.metadata;
  return typeof m === "object" && m !== null ? (m as JsonObject).managedFields : undefined;
}

/** Whether a served version has the built-in catalog's patch strategies. */
function hasPatchStrategies(served: ServedResource, version: string): boolean {
  return served.schema.versions.some((v) => v.name === version && v.catalogType !== undefined);
}

function query(ctx: RequestContext, name: string): string | undefined {
  return ctx.url.searchParams.get(name) ?? undefined;
}

function intParam(ctx: RequestContext, name: string): number | undefined {
  const raw = query(ctx, name);
  if (raw === undefined || raw === "") return undefined;
  if (!/^-?\d+$/.test(raw)) throw errors.badRequest(`invalid ${name} parameter: "${raw}" is not an integer`);
  return Number(raw);
}

function dryRun(ctx: RequestContext): boolean {
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
function selectors(
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
function largeBody(ctx: RequestContext): boolean {
  const body = ctx.req.body;
  return Buffer.isBuffer(body) && body.length >= LARGE_OBJECT_CHARS;
}

/** A PUT or apply that creates its object needs `create` too. */
async function checkCreateByWrite(ctx: RequestContext, env: HandlerEnv): Promise<void> {
  await env.authorizeVerb?.(ctx, "create");
}

/** The request's admission, for a resource or one of its subresources. */
function admissionFor(
  ctx: RequestContext,
  env: HandlerEnv,
  input: Omit<RequestAdmissionInput, "version"> & { readonly version?: string },
): RequestAdmission | undefined {
  return requestAdmission(env.admission, env.naming, ctx, {
    ...input,
    version: input.version ?? ctx.info?.apiVersion ?? "",
  });
}

/** DeleteOptions as webhooks see them. */
function deleteOptionsBody(options: DeleteOptionsBody): JsonObject {
  return {
    ...(options.preconditions ? { preconditions: options.preconditions } : {}),
    ...(options.dryRun ? { dryRun: ["All"] } : {}),
    ...(options.propagationPolicy ? { propagationPolicy: options.propagationPolicy } : {}),
    ...(options.gracePeriodSeconds !== undefined ? { gracePeriodSeconds: options.gracePeriodSeconds } : {}),
  };
}

function nameOf(object: JsonObject): string {
  const m = object.metadata;
  return typeof m === "object" && m !== null ? String((m as JsonObject).name ?? "") : "";
}

/** A create on a virtual resource, or on a subresource action: the answer is computed. */
async function handleVirtual(
  ctx: RequestContext,
  env: HandlerEnv,
  target: VirtualResource,
  version: string,
  namespace: string | undefined,
  name: string | undefined,
  parent?: { readonly served: ServedResource; readonly subresource: string },
): Promise<void> {
  const info = ctx.info;
  const ref = { group: target.schema.group, resource: target.schema.plural };
  if (info?.verb !== "create") throw errors.methodNotSupported(ref, info?.verb || ctx.req.method);
  const body = await env.codec.readObject(ctx, target, version);
  const choice = env.codec.output(ctx, target, { list: false, stream: false });
  // Computed answers have no stored object: both phases see the request's body.
  const admission = admissionFor(ctx, env, {
    served: parent?.served ?? target,
    subresource: parent?.subresource,
    namespace,
    name: name ?? nameOf(body),
    dryRun: dryRun(ctx),
    options: { kind: "CreateOptions", fieldManager: query(ctx, "fieldManager") },
    kind: { group: target.schema.group, version, kind: target.schema.kind },
  });
  if (admission) {
    await admission.admit(body, undefined);
    await admission.validate(body, undefined);
  }
  const object = await target.create(ctx, body, version, namespace, name);
  env.codec.sendObject(ctx, 201, object, choice, target);
}

export async function handleResource(ctx: RequestContext, env: HandlerEnv): Promise<void> {
  const info = ctx.info;
  if (!info?.isResourceRequest) throw errors.pageNotFound();
  const served = env.resources.lookup(info.apiGroup, info.apiVersion, info.resource);
  if (!served) {
    const virtual = env.resources.lookupVirtual(info.apiGroup, info.apiVersion, info.resource);
    if (!virtual || info.subresource || info.name) throw errors.pageNotFound();
    // Computed resources have no all-namespaces collection.
    if (virtual.schema.namespaced !== info.inNamespace || !scopeFits(virtual.schema.namespaced, info))
      throw errors.pageNotFound();
    noteDeprecatedRequest(ctx, env.naming, virtual.schema, info.apiVersion, env.metrics);
    return handleVirtual(ctx, env, virtual, info.apiVersion, info.namespace || undefined, undefined);
  }
  const { schema, registry } = served;
  if (!scopeFits(schema.namespaced, info)) throw errors.pageNotFound();
  // The all-namespaces collection of a namespaced resource is only read (list, watch).
  if (schema.namespaced && !info.inNamespace && info.verb !== "list" && info.verb !== "watch")
    throw errors.methodNotAllowed();
  noteDeprecatedRequest(ctx, env.naming, schema, info.apiVersion, env.metrics);
  const subresource = info.subresource || undefined;
  const action = subresource
    ? env.subresourceActions?.get(`${schema.group}/${schema.plural}/${subresource}`)
    : undefined;
  if (action && schema.subresources.includes(subresource as string)) {
    const version = bodyVersion(action);
    return handleVirtual(ctx, env, action, version, info.namespace || undefined, info.name, {
      served,
      subresource: subresource as string,
    });
  }
  if (subresource === "scale" && schema.scale && schema.subresources.includes("scale")) {
    const ns = schema.namespaced ? info.namespace || undefined : undefined;
    const dry = dryRun(ctx);
    const admission = admissionFor(ctx, env, {
      served,
      subresource,
      namespace: ns,
      name: info.name,
      dryRun: dry,
      options: { kind: "UpdateOptions", fieldManager: query(ctx, "fieldManager") },
      kind: { group: "autoscaling", version: "v1", kind: "Scale" },
    });
    // A scale write is recorded on the parent, under the subresource, as upstream does.
    const writer =
      info.verb === "update" || info.verb === "patch"
        ? writeManager(ctx, env, info.verb === "patch" ? "PatchOptions" : "UpdateOptions")
        : undefined;
    const fields = fieldManagerFor(served, env.naming, info.apiVersion, "scale");
    const track = writer
      ? (next: JsonObject, old: JsonObject | undefined) => fields.update(old, next, undefined, writer.manager)
      : undefined;
    return handleScale(ctx, env.codec, served, schema.scale, ns, info.name, info.verb, dry, admission, track);
  }
  if (subresource) {
    if (!schema.subresources.includes(subresource) || !registry.subresources[subresource])
      throw errors.pageNotFound();
    if (info.verb !== "get" && info.verb !== "update" && info.verb !== "patch") {
      throw errors.methodNotSupported(
        { group: schema.group, resource: `${schema.plural}/${subresource}` },
        info.verb,
      );
    }
  }
  const ns = schema.namespaced ? info.namespace || undefined : undefined;
  const ref = { group: schema.group, resource: schema.plural };
  const codec = env.codec;

  switch (info.verb) {
    case "get": {
      const choice = codec.output(ctx, served, { list: false, stream: false });
      const item = await registry.get(ns, info.name, query(ctx, "resourceVersion"));
      codec.sendStored(ctx, 200, item.json, choice, served);
      return;
    }
    case "list": {
      const choice = codec.output(ctx, served, { list: true, stream: false });
      const limit = intParam(ctx, "limit");
      if (limit !== undefined && limit < 0) throw errors.badRequest("limit must be a non-negative integer");
      const result = await registry.list(ns, {
        resourceVersion: query(ctx, "resourceVersion"),
        resourceVersionMatch: query(ctx, "resourceVersionMatch"),
        limit,
        continue: query(ctx, "continue"),
        ...selectors(ctx, served),
      });
      codec.sendList(ctx, result, choice, served, info.apiVersion);
      return;
    }
    case "watch": {
      const choice = codec.output(ctx, served, { list: true, stream: true });
      const sel = selectors(ctx, served, info.name || undefined);
      const sendInitial = query(ctx, "sendInitialEvents");
      const watcher = await registry.watch(ns, {
        resourceVersion: query(ctx, "resourceVersion"),
        resourceVersionMatch: query(ctx, "resourceVersionMatch"),
        sendInitialEvents: sendInitial === undefined ? undefined : sendInitial === "true",
        allowWatchBookmarks: queryFlag(ctx.url, "allowWatchBookmarks"),
        ...sel,
      });
      const timeout = intParam(ctx, "timeoutSeconds");
      await serveWatch(ctx, env, served, watcher, choice, info.apiVersion, timeout);
      return;
    }
    case "create": {
      if (!schema.verbs.includes("create")) throw errors.methodNotSupported(ref, "create");
      const body = await codec.readObject(ctx, served, info.apiVersion);
      await turnIf(largeBody(ctx));
      const { manager } = writeManager(ctx, env, "CreateOptions");
      const dry = dryRun(ctx);
      // Before admission, as upstream: webhooks never see an object of another namespace.
      registry.matchNamespace(body, ns);
      const admission = admissionFor(ctx, env, {
        served,
        subresource,
        namespace: ns,
        name: nameOf(body),
        dryRun: dry,
        options: { kind: "CreateOptions", fieldManager: query(ctx, "fieldManager") },
      });
      if (admission) await admission.admit(registry.decoded(body), undefined);
      const choice = codec.output(ctx, served, { list: false, stream: false });
      const fields = fieldManagerFor(served, env.naming, info.apiVersion, subresource);
      const sent = sentManagedFields(body);
      await env.checkWrite?.(ctx, {
        verb: "create",
        served,
        namespace: ns,
        subresource,
        object: body,
        old: undefined,
      });
      const { object } = await registry.create(ns, body, {
        dryRun: dry,
        large: largeBody(ctx),
        track: (next, old) => fields.update(old, next, sent, manager),
        ...(admission ? { admission: admission.validate } : {}),
      });
      codec.sendObject(ctx, 201, object, choice, served);
      return;
    }
    case "update": {
      if (!schema.verbs.includes("update")) throw errors.methodNotSupported(ref, "update");
      const body = await codec.readObject(ctx, served, info.apiVersion);
      await turnIf(largeBody(ctx));
      const { manager } = writeManager(ctx, env, "UpdateOptions");
      const choice = codec.output(ctx, served, { list: false, stream: false });
      registry.matchNamespace(body, ns);
      const fields = fieldManagerFor(served, env.naming, info.apiVersion, subresource);
      const sent = sentManagedFields(body);
      const dry = dryRun(ctx);
      const admission = admissionFor(ctx, env, {
        served,
        subresource,
        namespace: ns,
        name: info.name,
        dryRun: dry,
        options: { kind: "UpdateOptions", fieldManager: query(ctx, "fieldManager") },
      });
      const { object, created } = await registry.update(
        ns,
        info.name,
        async (current) => {
          if (!current) await checkCreateByWrite(ctx, env);
          const next = cloneJson(body);
          if (admission) await admission.admit(registry.decoded(next), current);
          await env.checkWrite?.(ctx, {
            verb: current ? "update" : "create",
            served,
            namespace: ns,
            subresource,
            object: next,
            old: current,
          });
          return next;
        },
        {
          dryRun: dry,
          large: largeBody(ctx),
          track: (next, old) => fields.update(old, next, sent, manager),
          ...(subresource ? { subresource } : {}),
          ...(admission ? { admission: admission.validate } : {}),
        },
      );
      codec.sendObject(ctx, created ? 201 : 200, object, choice, served);
      return;
    }
    case "patch": {
      if (!schema.verbs.includes("patch")) throw errors.methodNotSupported(ref, "patch");
      const strategic = hasPatchStrategies(served, info.apiVersion);
      const type = codec.patchType(ctx, PATCH_TYPES);
      if (type === STRATEGIC_PATCH && !strategic) throw errors.unsupportedMediaType(CUSTOM_PATCH_TYPES);
      const { manager, force } = writeManager(ctx, env, "PatchOptions", type);
      const fields = fieldManagerFor(served, env.naming, info.apiVersion, subresource);
      const choice = codec.output(ctx, served, { list: false, stream: false });
      const dry = dryRun(ctx);
      const admission = admissionFor(ctx, env, {
        served,
        subresource,
        namespace: ns,
        name: info.name,
        dryRun: dry,
        options: { kind: "PatchOptions", fieldManager: query(ctx, "fieldManager") },
      });
      const options = {
        dryRun: dry,
        large: largeBody(ctx),
        ...(subresource ? { subresource } : {}),
        ...(admission ? { admission: admission.validate } : {}),
      };
      if (type === APPLY_PATCH) {
        const config = await codec.readApply(ctx, served, info.apiVersion);
        await turnIf(largeBody(ctx));
        const { object, created } = await registry.update(
          ns,
          info.name,
          async (current) => {
            if (!current) await checkCreateByWrite(ctx, env);
            const applied = await fields.apply(current, cloneJson(config), manager, force);
            const next = codec.toStorage(applied, served, info.apiVersion);
            registry.matchNamespace(next, ns);
            if (admission) await admission.admit(registry.decoded(next), current);
            await env.checkWrite?.(ctx, {
              verb: current ? "update" : "create",
              served,
              namespace: ns,
              subresource,
              object: next,
              old: current ? cloneJson(current) : undefined,
            });
            return next;
          },
          { ...options, createIfMissing: !subresource },
        );
        codec.sendObject(ctx, created ? 201 : 200, object, choice, served);
        return;
      }
      const patch = await codec.readPatch(ctx, type);
      let sent: unknown;
      const { object, created } = await registry.update(
        ns,
        info.name,
        async (current, { large }) => {
          if (!current) throw registry.notFound(info.name);
          const old = cloneJson(current);
          await turnIf(large);
          const next = await codec.applyPatch(type, current, patch, served, info.apiVersion, large);
          await turnIf(large);
          registry.matchNamespace(next, ns);
          sent = sentManagedFields(next);
          if (admission) await admission.admit(registry.decoded(next), old);
          await env.checkWrite?.(ctx, {
            verb: "update",
            served,
            namespace: ns,
            subresource,
            object: next,
            old,
          });
          return next;
        },
        { ...options, createIfMissing: false, track: (next, old) => fields.update(old, next, sent, manager) },
      );
      codec.sendObject(ctx, created ? 201 : 200, object, choice, served);
      return;
    }
    case "delete": {
      if (!schema.verbs.includes("delete")) throw errors.methodNotSupported(ref, "delete");
      const options = await codec.readDeleteOptions(ctx);
      const choice = codec.output(ctx, served, { list: false, stream: false });
      const dry = dryRun(ctx) || Boolean(options.dryRun);
      const admission = admissionFor(ctx, env, {
        served,
        subresource,
        namespace: ns,
        name: info.name,
        dryRun: dry,
        deleteOptions: deleteOptionsBody(options),
      });
      await admission?.admit(undefined, undefined);
      const result = await registry.delete(ns, info.name, {
        ...options,
        dryRun: dry,
        ...(admission ? { admission: admission.validate } : {}),
      });
      if (served.registry.strategy.returnDeletedObject || !result.removed) {
        // Upstream answers 202 for a pending deletion only when orphanDependents=false was asked.
        const code = !result.removed && options.orphanDependents === false ? 202 : 200;
        codec.sendObject(ctx, code, result.object, choice, served);
      } else {
        const m = result.object.metadata as { name?: string; uid?: string };
        codec.sendStatus(ctx, 200, {
          kind: "Status",
          apiVersion: "v1",
          metadata: {},
          status: "Success",
          details: { name: m.name ?? info.name, group: schema.group, kind: schema.plural, uid: m.uid ?? "" },
        });
      }
      return;
    }
    case "deletecollection": {
      if (!schema.verbs.includes("deletecollection"))
        throw errors.methodNotSupported(ref, "deletecollection");
      const options = await codec.readDeleteOptions(ctx);
      const choice = codec.output(ctx, served, { list: true, stream: false });
      const dry = dryRun(ctx) || Boolean(options.dryRun);
      const admissionOf = (name: string) =>
        admissionFor(ctx, env, {
          served,
          subresource: undefined,
          namespace: ns,
          name,
          dryRun: dry,
          deleteOptions: deleteOptionsBody(options),
        });
      await admissionOf("")?.admit(undefined, undefined);
      const listed = await registry.list(ns, { ...selectors(ctx, served) });
      const deleted: JsonObject[] = [];
      for (const item of listed.items) {
        const o = JSON.parse(item.json) as { metadata: { name: string; namespace?: string } };
        const admission = admissionOf(o.metadata.name);
        try {
          const r = await registry.delete(o.metadata.namespace, o.metadata.name, {
            ...options,
            dryRun: dry,
            ...(admission ? { admission: admission.validate } : {}),
          });
          deleted.push(r.object);
        } catch (err) {
          if (!(err instanceof RegistryError && err.reason === "NotFound")) throw err;
        }
      }
      codec.sendObjects(ctx, deleted, choice, served, info.apiVersion);
      return;
    }
    default:
      throw errors.methodNotSupported(ref, info.verb || ctx.req.method);
  }
}

/**
 * Whether the path's shape has a route for a resource of this scope, as upstream registers them:
 * a cluster-scoped resource never inside a namespace (authorization saw that namespace, so
 * serving it would act outside what was allowed); a namespaced one inside a named namespace, or
 * as the all-namespaces collection (no name in the path; a field selector may still pin one).
 */
function scopeFits(namespaced: boolean, info: RequestInfo): boolean {
  // resource/name/subresource at most: nothing we serve takes a path below a subresource.
  if (info.parts.length > 3) return false;
  if (!namespaced) return !info.inNamespace;
  if (info.inNamespace) return info.namespace !== "";
  return info.parts.length === 1;
}

/** A subresource action's body is of one version (TokenRequest: authentication/v1). */
function bodyVersion(resource: VirtualResource): string {
  return (resource.schema.versions.find((v) => v.served) ?? { name: "v1" }).name;
}

export type { OutputChoice };
