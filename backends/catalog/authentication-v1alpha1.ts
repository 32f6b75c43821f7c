// authentication/v1alpha1: the alpha SelfSubjectReview.
import { f, pkg, t } from "./model.ts";

export const AUTHENTICATION_V1ALPHA1 = pkg("authentication/v1alpha1", "k8s.io.api.authentication.v1alpha1", {
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
});
