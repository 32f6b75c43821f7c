// PUT: the body replaces the object (or creates it where the kind allows), compared against the
// current object inside the registry's retry loop.
import { cloneJson } from "../../../backends/common/json.ts";
import { turnIf } from "../../../backends/common/turn.ts";
import { fieldManagerFor } from "../../fieldmanager/index.ts";
import { warnOtherNaming } from "../../naming-warnings.ts";
import type { VerbHandler } from "../env.ts";
import { dedupOwnerReferences } from "../owner-references.ts";
import { dryRun, largeBody, query, sentManagedFields, writeManager } from "../request-options.ts";
import { admissionFor, checkCreateByWrite } from "../write-admission.ts";

export const update: VerbHandler = async (ctx, env, { served, ns, name, subresource, version }) => {
  const { registry } = served;
  const codec = env.codec;
  const body = await codec.readObject(ctx, served, version);
  await turnIf(largeBody(ctx));
  warnOtherNaming(ctx, env.naming, { served, ns, subresource }, body);
  const { manager } = writeManager(ctx, env, "UpdateOptions");
  const choice = codec.output(ctx, served, { list: false, stream: false });
  registry.matchNamespace(body, ns);
  dedupOwnerReferences(ctx, body, false);
  const fields = fieldManagerFor(served, env.naming, version, subresource);
  const sent = sentManagedFields(body);
  const dry = dryRun(ctx);
  const admission = admissionFor(ctx, env, {
    served,
    subresource,
    namespace: ns,
    name,
    dryRun: dry,
    options: { kind: "UpdateOptions", fieldManager: query(ctx, "fieldManager") },
  });
  const { object, created } = await registry.update(
    ns,
    name,
    async (current) => {
      if (!current) await checkCreateByWrite(ctx, env);
      const next = cloneJson(body);
      if (admission) await admission.admit(registry.decoded(next), current);
      dedupOwnerReferences(ctx, next, true);
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
  await codec.sendObject(ctx, created ? 201 : 200, object, choice, served);
};
