// DELETE of one object: its options, admission, and the registry's delete (which waits for
// finalizers and grace periods); the answer is the object or a Status, as upstream sends it.
import type { VerbHandler } from "../env.ts";
import { dryRun } from "../request-options.ts";
import { admissionFor, deleteOptionsBody } from "../write-admission.ts";

export const del: VerbHandler = async (ctx, env, { served, ns, name, subresource }) => {
  const { registry, schema } = served;
  const codec = env.codec;
  const options = await codec.readDeleteOptions(ctx);
  const choice = codec.output(ctx, served, { list: false, stream: false });
  const dry = dryRun(ctx) || Boolean(options.dryRun);
  const admission = admissionFor(ctx, env, {
    served,
    subresource,
    namespace: ns,
    name,
    dryRun: dry,
    deleteOptions: deleteOptionsBody(options),
  });
  await admission?.admit(undefined, undefined);
  const result = await registry.delete(ns, name, {
    ...options,
    dryRun: dry,
    ...(admission ? { admission: admission.validate } : {}),
  });
  if (registry.strategy.returnDeletedObject || !result.removed) {
    // Upstream answers 202 for a pending deletion only when orphanDependents=false was asked.
    const code = !result.removed && options.orphanDependents === false ? 202 : 200;
    await codec.sendObject(ctx, code, result.object, choice, served);
    return;
  }
  const m = result.object.metadata as { name?: string; uid?: string };
  codec.sendStatus(
    ctx,
    200,
    {
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Success",
      details: { name: m.name ?? name, group: schema.group, kind: schema.plural, uid: m.uid ?? "" },
    },
    choice,
  );
};
