// The `scale` subresource: an autoscaling/v1 Scale read from and written to the object's replica
// fields (a workload's spec.replicas, or a custom resource's declared paths). Writes go through
// the main resource, so its validation and admission see the new replica count.
import {
  applyScale,
  getScale,
  readScale,
  type ScaleError,
  scaleForUpdate,
} from "../../backends/crd/index.ts";
import type { JsonObject } from "../../backends/registry/index.ts";
import type { ScaleSpec } from "../../backends/schema/index.ts";
import type { RequestAdmission } from "../admission/request.ts";
import type { RequestContext } from "../pipeline/index.ts";
import { errors } from "../request/api-error.ts";
import type { ServedResource } from "../routing/resources.ts";
import type { Codec } from "./codec.ts";

const SCALE_PATCH_TYPES = ["application/json-patch+json", "application/merge-patch+json"];

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

export async function handleScale(
  ctx: RequestContext,
  codec: Codec,
  served: ServedResource,
  spec: ScaleSpec,
  namespace: string | undefined,
  name: string,
  verb: string,
  dryRun: boolean,
  admission?: RequestAdmission,
  track?: (object: JsonObject, old: JsonObject | undefined) => Promise<void> | void,
): Promise<void> {
  const { registry, schema } = served;
  // A table of the Scale has the Scale's columns where the kind defines them (built-in workloads).
  const output = spec.tableColumns
    ? { ...served, schema: { ...schema, tableColumns: spec.tableColumns } }
    : served;
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
  const patchType = verb === "patch" ? codec.patchType(ctx, SCALE_PATCH_TYPES) : undefined;
  const body = await codec.readPatch(ctx, patchType ?? "application/json");
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
  const { object } = await registry.update(
    namespace,
    name,
    async (current) => {
      if (!current) throw registry.notFound(name);
      const from = scaleForUpdate(current, spec);
      if (!from.ok) fail(from);
      const scale = checkScale(patchType ? codec.applyValuePatch(patchType, from.scale, body) : body, name);
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
