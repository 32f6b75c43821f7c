// POST of a new object: decoded and checked, mutating admission, field tracking, then the
// registry's create (validation and validating admission inside it).
import { turnIf } from "../../../backends/common/turn.ts";
import { fieldManagerFor } from "../../fieldmanager/index.ts";
import { warnOtherNaming } from "../../naming-warnings.ts";
import type { VerbHandler } from "../env.ts";
import { dedupOwnerReferences } from "../owner-references.ts";
import { dryRun, largeBody, nameOf, query, sentManagedFields, writeManager } from "../request-options.ts";
import { admissionFor } from "../write-admission.ts";

export const create: VerbHandler = async (ctx, env, { served, ns, subresource, version }) => {
  const { registry } = served;
  const codec = env.codec;
  const body = await codec.readObject(ctx, served, version);
  await turnIf(largeBody(ctx));
  warnOtherNaming(ctx, env.naming, { served, ns, subresource }, body);
  const { manager } = writeManager(ctx, env, "CreateOptions");
  const dry = dryRun(ctx);
  // Before admission, as upstream: webhooks never see an object of another namespace.
  registry.matchNamespace(body, ns);
  dedupOwnerReferences(ctx, body, false);
  const admission = admissionFor(ctx, env, {
    served,
    subresource,
    namespace: ns,
    name: nameOf(body),
    dryRun: dry,
    options: { kind: "CreateOptions", fieldManager: query(ctx, "fieldManager") },
  });
  if (admission) await admission.admit(registry.decoded(body), undefined);
  dedupOwnerReferences(ctx, body, true);
  const choice = codec.output(ctx, served, { list: false, stream: false });
  const fields = fieldManagerFor(served, env.naming, version, subresource);
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
    ...(ctx.user ? { requester: ctx.user } : {}),
    track: (next, old) => fields.update(old, next, sent, manager),
    ...(admission ? { admission: admission.validate } : {}),
  });
  await codec.sendObject(ctx, 201, object, choice, served);
};
