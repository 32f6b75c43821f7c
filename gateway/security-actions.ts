// The two places where security plugins act inside the request handlers: the TokenRequest
// subresource of ServiceAccounts, and RBAC's escalation check on writes of roles and bindings.
import type { Naming } from "../backends/naming/index.ts";
import { createTokenRequest } from "../plugins/authentication/index.ts";
import type { Authorizer } from "../plugins/authorization/index.ts";
import { escalationCheck, type RbacAuthorizer } from "../plugins/authorization/rbac/index.ts";
import type { ObjectAccess } from "../plugins/objects/index.ts";
import type { HandlerEnv } from "./handlers/env.ts";
import { errors } from "./request/api-error.ts";
import { reviewSchema } from "./reviews/schema.ts";
import type { VirtualResource } from "./routing/resources.ts";
import type { Security } from "./security.ts";

/** `POST .../serviceaccounts/<name>/token`: a TokenRequest answered with a signed token. */
export function tokenRequestAction(
  naming: Naming,
  access: ObjectAccess,
  security: Security,
  maxExpirationMs: number,
): VirtualResource {
  return {
    schema: {
      ...reviewSchema({
        group: naming.group("authentication"),
        versions: [{ name: "v1", served: true }],
        kind: "TokenRequest",
      }),
      namespaced: true,
    },
    knownFields: {
      apiVersion: true,
      kind: true,
      metadata: true,
      spec: {
        audiences: true,
        expirationSeconds: true,
        boundObjectRef: { kind: true, apiVersion: true, name: true, uid: true },
      },
      status: true,
    },
    async create(ctx, body, _version, namespace, name) {
      const result = await createTokenRequest(
        access,
        security.signer,
        { naming, issuer: security.issuer, apiAudiences: security.apiAudiences, maxExpirationMs },
        namespace ?? "",
        name ?? "",
        body,
      );
      ctx.warnings.push(...result.warnings);
      return result.tokenRequest;
    },
  };
}

/** Refuses role and binding writes that grant more than the caller holds (or may bind). */
export function rbacEscalationCheck(
  naming: Naming,
  rbac: RbacAuthorizer,
  authorizer: Authorizer,
): NonNullable<HandlerEnv["checkWrite"]> {
  const group = naming.group("rbac.authorization");
  const escalation = escalationCheck({ rbac, naming, authorize: (a) => authorizer.authorize(a) });
  return async (ctx, write) => {
    if (write.served.schema.group !== group || write.subresource || !ctx.user) return;
    const resource = write.served.schema.plural;
    const denial = await escalation({
      user: ctx.user,
      namespace: write.namespace ?? "",
      verb: write.verb,
      resource,
      apiVersion: ctx.info?.apiVersion ?? "v1",
      object: write.object,
      ...(write.old ? { old: write.old } : {}),
    });
    if (!denial) return;
    if (denial.reason === "NotFound")
      throw errors.notFound({ group, resource: denial.resource }, denial.name);
    const name = (write.object.metadata as { name?: string } | undefined)?.name ?? "";
    throw errors.forbidden({ group, resource }, name, denial.message);
  };
}
