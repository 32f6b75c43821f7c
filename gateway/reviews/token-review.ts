// TokenReview (authentication.<domain> v1 and v1beta1): who a bearer token belongs to, as
// this server's token authenticators see it, for the audiences the caller names.
import type { Naming } from "../../backends/naming/index.ts";
import type { JsonObject } from "../../backends/registry/index.ts";
import type { TokenAuthenticator } from "../../plugins/authentication/index.ts";
import { errors } from "../request/api-error.ts";
import type { VirtualResource } from "../routing/resources.ts";
import { reviewResponse, reviewSchema } from "./schema.ts";

function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
}

export function tokenReviews(
  naming: Naming,
  authenticator: TokenAuthenticator,
  apiAudiences: readonly string[],
): VirtualResource {
  return {
    schema: reviewSchema({
      group: naming.group("authentication"),
      versions: [
        { name: "v1", served: true },
        { name: "v1beta1", served: true },
      ],
      kind: "TokenReview",
    }),
    knownFields: {
      apiVersion: true,
      kind: true,
      metadata: true,
      spec: { token: true, audiences: true },
      status: true,
    },
    async create(_ctx, body) {
      const spec = (body.spec ?? {}) as JsonObject;
      const token = typeof spec.token === "string" ? spec.token : "";
      if (token === "") throw errors.badRequest("token is required for TokenReview in authentication");
      const requested = stringList(spec.audiences);
      const audiences = requested.length > 0 ? requested : apiAudiences;
      const result = await authenticator.authenticateToken(token, audiences);
      if (result.kind !== "user") {
        return reviewResponse(body, {
          authenticated: false,
          user: {},
          ...(result.kind === "rejected" ? { error: result.reason } : {}),
        });
      }
      const granted = result.audiences ?? audiences;
      if (audiences.length > 0 && !granted.some((a) => audiences.includes(a))) {
        return reviewResponse(body, { authenticated: false, user: {}, error: "token audiences are invalid" });
      }
      const groups = result.user.groups.includes("system:authenticated")
        ? result.user.groups
        : [...result.user.groups, "system:authenticated"];
      return reviewResponse(body, {
        authenticated: true,
        user: {
          username: result.user.username,
          ...(result.user.uid ? { uid: result.user.uid } : {}),
          groups,
          ...(Object.keys(result.user.extra).length > 0 ? { extra: result.user.extra } : {}),
        },
        ...(granted.length > 0 ? { audiences: granted.filter((a) => audiences.includes(a)) } : {}),
      });
    },
  };
}
