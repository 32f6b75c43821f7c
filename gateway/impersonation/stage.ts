// The `impersonation` stage: a caller may act as another user (`kubectl --as`, `--as-group`,
// `--as-uid`) when the authorizer lets it `impersonate` each requested value: `users` (or the
// service account), `groups`, `uids` and `userextras/<key>`. The request then goes on as the
// impersonated user; the caller is kept as the impersonator (audit records both). A denial is a
// 403 naming the first value refused.
import type { Naming } from "../../backends/naming/index.ts";
import type { Attributes, AuthorizationResult, Authorizer } from "../../plugins/authorization/index.ts";
import { forbidden } from "../authorization/forbidden.ts";
import type { RequestContext, Stage, UserInfo } from "../pipeline/index.ts";
import { errors } from "../request/api-error.ts";
import {
  asksImpersonation,
  distinctHeaders,
  IMPERSONATE_EXTRA_PREFIX,
  IMPERSONATE_GROUP,
  IMPERSONATE_UID,
  IMPERSONATE_USER,
  type ImpersonationRequest,
  impersonationRequests,
  serviceAccountGroups,
} from "./requests.ts";

const ANONYMOUS = "system:anonymous";
const AUTHENTICATED = "system:authenticated";
const UNAUTHENTICATED = "system:unauthenticated";

export function impersonationStage(authorizer: Authorizer, naming: Naming): Stage {
  const authenticationGroup = naming.group("authentication");

  const attributesFor = (requestor: UserInfo, r: ImpersonationRequest): Attributes => {
    const base = {
      user: requestor,
      verb: "impersonate",
      isResourceRequest: true,
      path: "",
      namespace: "",
      apiGroup: "",
      apiVersion: "",
      subresource: "",
    };
    switch (r.kind) {
      case "User":
        return { ...base, resource: "users", name: r.name };
      case "ServiceAccount":
        return { ...base, resource: "serviceaccounts", namespace: r.namespace, name: r.name };
      case "Group":
        return { ...base, resource: "groups", name: r.name };
      case "UserExtra":
        return {
          ...base,
          apiGroup: authenticationGroup,
          apiVersion: "v1",
          resource: "userextras",
          subresource: r.key,
          name: r.value,
        };
      case "UID":
        return { ...base, apiGroup: authenticationGroup, apiVersion: "v1", resource: "uids", name: r.uid };
    }
  };

  return {
    name: "impersonation",
    async run(ctx: RequestContext) {
      // Most requests impersonate nobody; building the per-line header lists costs more than this.
      if (!asksImpersonation(ctx.req.raw.headers)) return;
      const headers = distinctHeaders(ctx.req.raw);
      const requests = impersonationRequests(headers, naming);
      if (requests.length === 0) return;
      const requestor = ctx.user;
      if (!requestor) throw errors.internal("no user found for the request");

      // Groups, when given, are the whole list; otherwise a service account brings its own.
      const groupsSpecified = (headers[IMPERSONATE_GROUP]?.length ?? 0) > 0;
      let username = "";
      let uid = "";
      let groups: string[] = [];
      const extra: Record<string, string[]> = {};
      for (const r of requests) {
        const attributes = attributesFor(requestor, r);
        let result: AuthorizationResult;
        try {
          result = await authorizer.authorize(attributes);
        } catch (err) {
          ctx.req.log.warn({ err, authorizer: authorizer.name }, "authorizer failed");
          result = { decision: "noOpinion", reason: "" };
        }
        if (result.decision !== "allow") {
          ctx.req.log.info(
            { user: requestor.username, resource: attributes.resource, reason: result.reason },
            "impersonation forbidden",
          );
          throw forbidden(attributes, result.reason);
        }
        switch (r.kind) {
          case "User":
            username = r.name;
            break;
          case "ServiceAccount":
            username = `system:serviceaccount:${r.namespace}:${r.name}`;
            if (!groupsSpecified) groups = serviceAccountGroups(r.namespace);
            break;
          case "Group":
            groups.push(r.name);
            break;
          case "UserExtra":
            extra[r.key] = [...(extra[r.key] ?? []), r.value];
            break;
          case "UID":
            uid = r.uid;
            break;
        }
      }
      if (username !== ANONYMOUS) {
        if (!groups.includes(AUTHENTICATED) && !groups.includes(UNAUTHENTICATED)) groups.push(AUTHENTICATED);
      } else if (!groups.includes(UNAUTHENTICATED)) {
        groups.push(UNAUTHENTICATED);
      }

      ctx.impersonator = requestor;
      ctx.user = { username, uid, groups, extra };
      ctx.req.log.debug({ impersonator: requestor.username, user: username }, "impersonating");
      // Later hops (a proxied extension server) must not see the headers again.
      for (const target of [ctx.req.headers, ctx.req.raw.headersDistinct]) {
        if (!target) continue;
        for (const name of Object.keys(target)) {
          if (
            name === IMPERSONATE_USER ||
            name === IMPERSONATE_GROUP ||
            name === IMPERSONATE_UID ||
            name.startsWith(IMPERSONATE_EXTRA_PREFIX)
          )
            delete target[name];
        }
      }
    },
  };
}
