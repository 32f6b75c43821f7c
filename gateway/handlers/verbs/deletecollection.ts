// DELETE of a collection: every selected object deleted one by one, each through admission; the
// answer lists what was deleted.
import { type JsonObject, RegistryError } from "../../../backends/registry/index.ts";
import type { VerbHandler } from "../env.ts";
import { dryRun, selectors } from "../request-options.ts";
import { admissionFor, deleteOptionsBody } from "../write-admission.ts";

export const deletecollection: VerbHandler = async (ctx, env, { served, ns, version }) => {
  const { registry } = served;
  const codec = env.codec;
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
  await codec.sendObjects(ctx, deleted, choice, served, version);
};
