// authentication/v1: TokenReview (check a bearer token), TokenRequest (mint a service account
// token) and SelfSubjectReview (who am I), with the user description they share.
import { f, pkg, required, t } from "./model.ts";

export const AUTHENTICATION_V1 = pkg("authentication/v1", "k8s.io.api.authentication.v1", {
  BoundObjectReference: t(
    "An object a service account token is tied to; the token stops working once it is gone.",
    {
      kind: f(1, "string", "Kind of the object: Pod or Secret."),
      apiVersion: f(2, "string", "API version of the object."),
      name: f(3, "string", "Name of the object."),
      uid: f(4, "string", "UID of the object, so a recreated object with the same name does not match.", {
        protoName: "uID",
      }),
    },
  ),
  ExtraValue: {
    ...t("A list of strings: the values of one extra user attribute.", {
      items: f(1, "[]string", "The attribute's values."),
    }),
    jsonAs: "[]string",
  },
  SelfSubjectReview: t(
    "Asks the server who the caller is; the reply describes the authenticated user (or the impersonated one).",
    {
      metadata: f(1, "meta/v1.ObjectMeta", "The object's metadata."),
      status: f(2, "SelfSubjectReviewStatus", "Filled in by the server with the caller's user attributes."),
    },
  ),
  SelfSubjectReviewStatus: t("The server's answer to a SelfSubjectReview.", {
    userInfo: f(1, "UserInfo", "The caller's user name, UID, groups and extra attributes."),
  }),
  TokenRequest: t("Asks the server to issue a token for a service account.", {
    metadata: f(1, "meta/v1.ObjectMeta", "The object's metadata."),
    spec: f(2, "TokenRequestSpec", "Audiences, lifetime and binding of the wanted token.", {
      ...required,
      omitEmpty: false,
    }),
    status: f(3, "TokenRequestStatus", "Filled in by the server with the issued token."),
  }),
  TokenRequestSpec: t("What the caller wants from a requested token.", {
    audiences: f(
      1,
      "[]string",
      "Who the token is meant for; a recipient should accept the token only if it is named here. Several audiences must trust one another.",
      { ...required, omitEmpty: false },
    ),
    expirationSeconds: f(
      4,
      "int64",
      "Requested lifetime in seconds; the issuer may pick a different one, so read the expiration in the status.",
      { pointer: true, omitEmpty: false },
    ),
    boundObjectRef: f(
      3,
      "BoundObjectReference",
      "Object the token is tied to; only this server's TokenReview enforces the tie, so keep lifetimes short if that matters.",
      { pointer: true, omitEmpty: false },
    ),
  }),
  TokenRequestStatus: t("The token issued for a TokenRequest.", {
    token: f(1, "string", "The opaque bearer token.", { omitEmpty: false }),
    expirationTimestamp: f(2, "time", "When the token stops being valid.", { omitEmpty: false }),
  }),
  TokenReview: t(
    "Asks the server to authenticate a bearer token and say which user it belongs to. Webhook authenticators may cache answers.",
    {
      metadata: f(1, "meta/v1.ObjectMeta", "The object's metadata."),
      spec: f(2, "TokenReviewSpec", "The token to check and the audiences it should be valid for.", {
        ...required,
        omitEmpty: false,
      }),
      status: f(3, "TokenReviewStatus", "Filled in by the server with the outcome."),
    },
  ),
  TokenReviewSpec: t("The token to authenticate.", {
    token: f(1, "string", "The opaque bearer token."),
    audiences: f(
      2,
      "[]string",
      "Identifiers the caller goes by; the token must have been issued for one of them. When empty, the API server's own audience is assumed.",
    ),
  }),
  TokenReviewStatus: t("The outcome of authenticating a token.", {
    authenticated: f(1, "bool", "True when the token belongs to a known user."),
    user: f(2, "UserInfo", "The user the token identifies."),
    audiences: f(
      4,
      "[]string",
      "Audiences both the request and the token accept. Callers that asked for audiences should check one is returned; empty with authenticated true means the API server's own audience.",
    ),
    error: f(3, "string", "Why the token could not be checked."),
  }),
  UserInfo: t("The attributes of an authenticated user.", {
    username: f(1, "string", "Name of the user, unique among current users."),
    uid: f(
      2,
      "string",
      "Stable identifier of the user, different for a later user who reuses the same name.",
    ),
    groups: f(3, "[]string", "Groups the user belongs to."),
    extra: f(4, "{}ExtraValue", "Further attributes the authenticator supplied, each a list of strings."),
  }),
});
