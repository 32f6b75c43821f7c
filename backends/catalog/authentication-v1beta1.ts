// authentication/v1beta1: the beta TokenReview and SelfSubjectReview.
import { f, pkg, required, t } from "./model.ts";

export const AUTHENTICATION_V1BETA1 = pkg("authentication/v1beta1", "k8s.io.api.authentication.v1beta1", {
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
    userInfo: f(1, "authentication/v1.UserInfo", "The caller's user name, UID, groups and extra attributes."),
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
