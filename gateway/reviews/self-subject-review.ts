// SelfSubjectReview (authentication.<domain>): the caller's own identity, as authentication
// (and impersonation) left it. v1alpha1 follows the APISelfSubjectReview gate like upstream;
// v1beta1 and v1 are served too so that newer kubectl `auth whoami` finds a version it knows.
import type { Naming } from "../../backends/naming/index.ts";
import { errors } from "../request/api-error.ts";
import type { VirtualResource } from "../routing/resources.ts";
import { reviewResponse, reviewSchema } from "./schema.ts";

export function selfSubjectReviews(naming: Naming): VirtualResource {
  return {
    schema: reviewSchema({
      group: naming.group("authentication"),
      versions: [
        { name: "v1", served: true },
        { name: "v1beta1", served: true },
        { name: "v1alpha1", served: true },
      ],
      kind: "SelfSubjectReview",
    }),
    knownFields: { apiVersion: true, kind: true, metadata: true, status: true },
    async create(ctx, body) {
      const user = ctx.user;
      if (!user) throw errors.internal("no user information found for the request");
      return reviewResponse(body, {
        userInfo: {
          username: user.username,
          ...(user.uid ? { uid: user.uid } : {}),
          ...(user.groups.length > 0 ? { groups: user.groups } : {}),
          ...(Object.keys(user.extra).length > 0 ? { extra: user.extra } : {}),
        },
      });
    },
  };
}
