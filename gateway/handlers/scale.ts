// The `scale` subresource: an autoscaling/v1 Scale read from and written to the object's replica
// fields (a workload's spec.replicas, or a custom resource's declared paths). Writes go through
// the main resource, so its validation and admission see the new replica count. Patches are
// those of the parent's endpoint: built-in kinds take strategic merge patches of the Scale (its
// type has patch strategies), custom resources JSON and merge patches; both take server-side
// apply, whose ownership of the replicas is kept on the parent (scale-fields.ts).
import { scaleSchema } from "../../backends/builtin/index.ts";
import { cloneJson } from "../../backends/common/json.ts";
import {
  applyScale,
  getScale,
  readScale,
  type ScaleError,
  scaleForUpdate,
} from "../../backends/crd/index.ts";
import { clientNames } from "../../backends/naming/index.ts";
import type { JsonObject } from "../../backends/registry/index.ts";
import type { ScaleSpec } from "../../backends/schema/index.ts";
import { type CompiledSchema, compileSchema } from "../../backends/schema/structural/index.ts";
import type { RequestAdmission } from "../admission/request.ts";
import { goQuote } from "../fieldmanager/field-set.ts";
import { FieldManager, fieldManagerFor, type VersionView } from "../fieldmanager/index.ts";
import { applyStrategicMergePatch } from "../patch/strategic-merge.ts";
import type { RequestContext } from "../pipeline/index.ts";
import { errors } from "../request/api-error.ts";
import type { ServedResource } from "../routing/resources.ts";
import type { HandlerEnv } from "./env.ts";
import {
  APPLY_PATCH,
  CUSTOM_PATCH_TYPES,
  PATCH_TYPES,
  query,
  STRATEGIC_PATCH,
  writeManager,
} from "./request-options.ts";
import { parentManagedFields, replicasPath, SCALE_API_VERSION, scaleManagedFields } from "./scale-fields.ts";

function fail(e: ScaleError): never {
  throw e.reason === "BadRequest" ? errors.badRequest(e.message) : errors.internal(e.message);
}

function withSelector(scale: JsonObject, object: JsonObject, spec: ScaleSpec): JsonObject {
  if (spec.selector) {
    const selector = spec.selector(object);
    const status = (scale.status ?? {}) as JsonObject;
    if (selector) status.selector = selector;
    scale.status = status;
  }
  return scale;
}

function checkScale(scale: unknown, name: string): JsonObject {
  if (typeof scale !== "object" || scale === null || Array.isArray(scale))
    throw errors.badRequest("the request body must be a Scale object");
  const object = scale as JsonObject;
  const replicas = (object.spec as JsonObject | undefined)?.replicas;
  if (replicas !== undefined && (typeof replicas !== "number" || !Number.isInteger(replicas))) {
    throw errors.badRequest(
      `json: cannot unmarshal ${typeof replicas} into Go struct field ScaleSpec.spec.replicas of type int32`,
    );
  }
  if (typeof replicas === "number" && replicas < 0) {
    throw errors.invalid({ group: "autoscaling", kind: "Scale" }, name, [
      {
        field: "spec.replicas",
        type: "FieldValueInvalid",
        value: replicas,
        detail: "must be greater than or equal to 0",
      },
    ]);
  }
  return object;
}

/** The Scale kind to the field manager: one version, autoscaling/v1, typed by the catalog. */
const SCALE_VIEW: VersionView = {
  kind: "Scale",
  hasStatus: false,
  apiVersion: (version) => `autoscaling/${version}`,
  versionOf: (apiVersion) => (apiVersion === SCALE_API_VERSION ? "v1" : undefined),
  schema: () => scaleSchema(),
  convert: (object) => object,
};

let compiledScale: CompiledSchema | undefined;

/**
 * An apply body for a Scale: an object without managedFields, its unknown fields dropped,
 * reported or refused as `fieldValidation` says (as for any apply body).
 */
function readScaleApply(ctx: RequestContext, body: unknown): JsonObject {
  if (typeof body !== "object" || body === null || Array.isArray(body))
    throw errors.badRequest("the apply body must be an object");
  const config = body as JsonObject;
  const metadata = config.metadata;
  if (typeof metadata === "object" && metadata !== null && (metadata as JsonObject).managedFields != null)
    throw errors.badRequest("metadata.managedFields must be nil");
  const level = query(ctx, "fieldValidation") ?? "Warn";
  if (level !== "Ignore" && level !== "Warn" && level !== "Strict")
    throw errors.badRequest(
      `fieldValidation: Unsupported value: "${level}": supported values: "Ignore", "Warn", "Strict"`,
    );
  compiledScale ??= compileSchema(scaleSchema(), { builtin: true });
  const unknown = compiledScale.prune(config, { root: false });
  compiledScale.dropNulls(config);
  if (unknown.length > 0 && level !== "Ignore") {
    const problems = unknown.map((p) => `unknown field ${goQuote(p)}`);
    if (level === "Strict") throw errors.badRequest(`strict decoding error: ${problems.join(", ")}`);
    ctx.warnings.push(...problems);
  }
  return config;
}

export interface ScaleTarget {
  readonly served: ServedResource;
  readonly spec: ScaleSpec;
  readonly namespace: string | undefined;
  readonly name: string;
  /** The parent's version the request names. */
  readonly version: string;
  readonly dryRun: boolean;
  readonly admission?: RequestAdmission | undefined;
}

export async function handleScale(ctx: RequestContext, env: HandlerEnv, target: ScaleTarget): Promise<void> {
  const { served, spec, namespace, name, version, dryRun, admission } = target;
  const { registry, schema } = served;
  // A table of the Scale has the Scale's columns where the kind defines them (built-in workloads).
  const output = spec.tableColumns
    ? { ...served, schema: { ...schema, tableColumns: spec.tableColumns } }
    : served;
  const codec = env.codec;
  const verb = ctx.info?.verb ?? "";
  const choice = codec.output(ctx, output, {
    list: false,
    stream: false,
    kind: { apiVersion: "autoscaling/v1", kind: "Scale" },
  });
  if (verb === "get") {
    const item = await registry.get(
      namespace,
      name,
      ctx.url.searchParams.get("resourceVersion") ?? undefined,
    );
    const object = JSON.parse(item.json) as JsonObject;
    const r = getScale(object, spec);
    if (!r.ok) fail(r);
    codec.sendOther(ctx, 200, withSelector(r.scale, object, spec), choice, output);
    return;
  }
  if (verb !== "update" && verb !== "patch") {
    throw errors.methodNotSupported({ group: schema.group, resource: `${schema.plural}/scale` }, verb);
  }
  // Built-in kinds have the catalog's Scale type with its patch strategies; custom ones do not.
  const builtin = schema.versions.some((v) => v.name === version && v.catalogType !== undefined);
  const patchType =
    verb === "patch" ? codec.patchType(ctx, builtin ? PATCH_TYPES : CUSTOM_PATCH_TYPES) : undefined;
  const writer = writeManager(ctx, env, verb === "patch" ? "PatchOptions" : "UpdateOptions", patchType);
  const body =
    (verb === "update"
      ? codec.readProtobufOther(ctx, { apiVersion: "autoscaling/v1", kind: "Scale" })
      : undefined) ?? (await codec.readPatch(ctx, patchType ?? "application/json"));
  const config = patchType === APPLY_PATCH ? readScaleApply(ctx, body) : undefined;
  // Admission sees Scale objects, before and after, as upstream's scale endpoint shows them.
  const scaleOf = (object: JsonObject): JsonObject => {
    const r = getScale(object, spec);
    if (!r.ok) fail(r);
    return withSelector(r.scale, object, spec);
  };
  // The answer of a write, as upstream reads it back (unset spec replicas read as 0). It is read
  // from the object about to be stored before it is stored too, so that nothing fails once the
  // write has committed.
  const answer = (object: JsonObject): JsonObject => {
    const r = readScale(object, spec);
    if (!r.ok) throw errors.badRequest(r.message);
    return withSelector(r.scale, object, spec);
  };
  const replicas = replicasPath(spec.specReplicasPath);
  const apiVersion = (v: string) => (schema.group ? `${schema.group}/${v}` : v);
  const isServed = (av: string) => schema.versions.some((v) => v.served && apiVersion(v.name) === av);
  // Writes other than apply are recorded on the parent, under the subresource, as upstream does.
  const fields = fieldManagerFor(served, env.naming, version, "scale");
  const track = config
    ? undefined
    : (next: JsonObject, old: JsonObject | undefined) => fields.update(old, next, undefined, writer.manager);
  const { object } = await registry.update(
    namespace,
    name,
    async (current) => {
      if (!current) throw registry.notFound(name);
      const from = scaleForUpdate(current, spec);
      if (!from.ok) fail(from);
      let scale: JsonObject;
      if (config) {
        // The Scale's owners come from the parent's, and go back to it after the apply.
        const live = withSelector(from.scale, current, spec);
        const parentFields = (current.metadata as JsonObject | undefined)?.managedFields;
        const liveFields = scaleManagedFields(parentFields, replicas, isServed);
        if (liveFields) (live.metadata as JsonObject).managedFields = liveFields;
        const scaleFields = new FieldManager({
          view: SCALE_VIEW,
          version: "v1",
          subresource: "scale",
          lastAppliedAnnotation: clientNames.lastAppliedConfiguration,
        });
        const applied = await scaleFields.apply(live, cloneJson(config), writer.manager, writer.force);
        scale = checkScale(applied, name);
        await admission?.admit(scale, scaleOf(current));
        const next = applyScale(current, scale, spec);
        if (!next.ok) fail(next);
        const m = next.object.metadata as JsonObject;
        const merged = parentManagedFields(
          parentFields,
          (scale.metadata as JsonObject | undefined)?.managedFields,
          replicas,
          apiVersion(version),
          isServed,
        );
        if (merged) m.managedFields = merged;
        else delete m.managedFields;
        return next.object;
      }
      scale = checkScale(patchType ? patchScale(patchType, from.scale, body, codec) : body, name);
      await admission?.admit(scale, scaleOf(current));
      const next = applyScale(current, scale, spec);
      if (!next.ok) fail(next);
      return next.object;
    },
    {
      dryRun,
      createIfMissing: false,
      ...(track ? { track } : {}),
      admission: async (o: JsonObject | undefined, old: JsonObject | undefined) => {
        if (o) answer(o);
        await admission?.validate(o && scaleOf(o), old && scaleOf(old));
      },
    },
  );
  codec.sendOther(ctx, 200, answer(object), choice, output);
}

/** A JSON, merge or strategic merge patch of a Scale (whose type has no list strategies). */
function patchScale(type: string, scale: JsonObject, patch: unknown, codec: HandlerEnv["codec"]): unknown {
  if (type !== STRATEGIC_PATCH) return codec.applyValuePatch(type, scale, patch);
  return applyStrategicMergePatch(scale, patch as JsonObject, scaleSchema());
}
