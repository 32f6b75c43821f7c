// PATCH: JSON, merge and strategic merge patches applied to the current object, and server-side
// apply (which may create); all inside the registry's retry loop.
import { cloneJson } from "../../../backends/common/json.ts";
import { turnIf } from "../../../backends/common/turn.ts";
import { fieldManagerFor } from "../../fieldmanager/index.ts";
import { warnOtherNaming } from "../../naming-warnings.ts";
import { errors } from "../../request/api-error.ts";
import type { ServedResource } from "../../routing/resources.ts";
import type { VerbHandler } from "../env.ts";
import { dedupOwnerReferences } from "../owner-references.ts";
import {
  APPLY_PATCH,
  CUSTOM_PATCH_TYPES,
  dryRun,
  largeBody,
  PATCH_TYPES,
  query,
  STRATEGIC_PATCH,
  sentManagedFields,
  writeManager,
} from "../request-options.ts";
import { admissionFor, checkCreateByWrite } from "../write-admission.ts";

/** Whether a served version has the built-in catalog's patch strategies. */
function hasPatchStrategies(served: ServedResource, version: string): boolean {
  return served.schema.versions.some((v) => v.name === version && v.catalogType !== undefined);
}

export const patch: VerbHandler = async (ctx, env, { served, ns, name, subresource, version }) => {
  const { registry } = served;
  const codec = env.codec;
  const type = codec.patchType(ctx, PATCH_TYPES);
  if (type === STRATEGIC_PATCH && !hasPatchStrategies(served, version))
    throw errors.unsupportedMediaType(CUSTOM_PATCH_TYPES);
  const { manager, force } = writeManager(ctx, env, "PatchOptions", type);
  const fields = fieldManagerFor(served, env.naming, version, subresource);
  const choice = codec.output(ctx, served, { list: false, stream: false });
  const dry = dryRun(ctx);
  const admission = admissionFor(ctx, env, {
    served,
    subresource,
    namespace: ns,
    name,
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
    const config = await codec.readApply(ctx, served, version);
    await turnIf(largeBody(ctx));
    warnOtherNaming(ctx, env.naming, { served, ns, subresource }, config);
    const { object, created } = await registry.update(
      ns,
      name,
      async (current) => {
        if (!current) await checkCreateByWrite(ctx, env);
        const applied = await fields.apply(current, cloneJson(config), manager, force);
        const next = await codec.toStorage(applied, served, version);
        registry.matchNamespace(next, ns);
        if (admission) await admission.admit(registry.decoded(next), current);
        dedupOwnerReferences(ctx, next, true);
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
      { ...options, createIfMissing: !subresource, ...(ctx.user ? { requester: ctx.user } : {}) },
    );
    await codec.sendObject(ctx, created ? 201 : 200, object, choice, served);
    return;
  }
  const body = await codec.readPatch(ctx, type);
  let sent: unknown;
  const { object, created } = await registry.update(
    ns,
    name,
    async (current, { large }) => {
      if (!current) throw registry.notFound(name);
      const old = cloneJson(current);
      await turnIf(large);
      const next = await codec.applyPatch(type, current, body, served, version, large);
      await turnIf(large);
      registry.matchNamespace(next, ns);
      warnOtherNaming(ctx, env.naming, { served, ns, subresource }, next);
      sent = sentManagedFields(next);
      if (admission) await admission.admit(registry.decoded(next), old);
      dedupOwnerReferences(ctx, next, true);
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
  await codec.sendObject(ctx, created ? 201 : 200, object, choice, served);
};
