// authorization/v1: the review objects that ask the authorizer whether a user may do something
// (SubjectAccessReview and its local and self forms) or what the caller may do (SelfSubjectRulesReview).
import { f, pkg, required, t } from "./model.ts";

export const AUTHORIZATION_V1 = pkg("authorization/v1", "k8s.io.api.authorization.v1", {
  ExtraValue: {
    ...t("A list of strings: the values of one extra user attribute.", {
      items: f(1, "[]string", "The attribute's values."),
    }),
    jsonAs: "[]string",
  },
  LocalSubjectAccessReview: t(
    "Asks whether a user or group may perform an action inside one namespace; being namespaced, it is easy to grant per namespace.",
    {
      metadata: f(1, "meta/v1.ObjectMeta", "The object's metadata."),
      spec: f(
        2,
        "SubjectAccessReviewSpec",
        "The action and user to check; its namespace must equal the request's namespace and is filled in when empty.",
        { ...required, omitEmpty: false },
      ),
      status: f(3, "SubjectAccessReviewStatus", "Filled in by the server with the decision."),
    },
  ),
  NonResourceAttributes: t(
    "The request attributes of an access check on a URL path that is not a resource.",
    {
      path: f(1, "string", "URL path of the request, such as `/healthz`."),
      verb: f(2, "string", "HTTP verb of the request, in lowercase, such as get or post."),
    },
  ),
  NonResourceRule: t("Actions the subject may perform on URL paths that are not resources.", {
    verbs: f(1, "[]string", "Allowed HTTP verbs in lowercase, such as get or post; `*` means all.", {
      ...required,
      omitEmpty: false,
    }),
    nonResourceURLs: f(
      2,
      "[]string",
      "Paths the verbs apply to; a trailing `*` matches a prefix and `*` alone matches every path.",
    ),
  }),
  ResourceAttributes: t("The request attributes of an access check on an API resource.", {
    namespace: f(
      1,
      "string",
      "Namespace of the action. Empty means cluster-scoped resources, or all namespaces for namespaced ones; LocalSubjectAccessReview fills it in.",
    ),
    verb: f(
      2,
      "string",
      "API verb such as get, list, watch, create, update, delete or proxy; `*` means all.",
    ),
    group: f(3, "string", "API group of the resource; `*` means all."),
    version: f(4, "string", "API version of the resource; `*` means all."),
    resource: f(5, "string", "Resource type, such as `pods`; `*` means all."),
    subresource: f(6, "string", "Subresource, such as `log`; empty means none."),
    name: f(7, "string", "Name of the object acted on; empty means every object."),
  }),
  ResourceRule: t(
    "Actions the subject may perform on resources. Lists of these may come unordered, repeated or incomplete.",
    {
      verbs: f(1, "[]string", "Allowed API verbs, such as get, list or delete; `*` means all.", {
        ...required,
        omitEmpty: false,
      }),
      apiGroups: f(2, "[]string", "API groups of the resources; `*` means all groups."),
      resources: f(
        3,
        "[]string",
        "Resource types covered; `*` means all in the groups, and `*/name` a subresource of any of them.",
      ),
      resourceNames: f(
        4,
        "[]string",
        "Restrict the rule to these object names; empty or `*` means any name.",
      ),
    },
  ),
  SelfSubjectAccessReview: t(
    "Asks whether the caller may perform an action; anyone may ask this about themselves. An empty namespace means all namespaces.",
    {
      metadata: f(1, "meta/v1.ObjectMeta", "The object's metadata."),
      spec: f(2, "SelfSubjectAccessReviewSpec", "The action to check; no user or groups are given.", {
        ...required,
        omitEmpty: false,
      }),
      status: f(3, "SubjectAccessReviewStatus", "Filled in by the server with the decision."),
    },
  ),
  SelfSubjectAccessReviewSpec: t(
    "The action the caller wants checked; set exactly one of the resource and non-resource attributes.",
    {
      resourceAttributes: f(1, "ResourceAttributes", "The action, when it targets an API resource.", {
        pointer: true,
      }),
      nonResourceAttributes: f(
        2,
        "NonResourceAttributes",
        "The action, when it targets a non-resource URL path.",
        { pointer: true },
      ),
    },
  ),
  SelfSubjectRulesReview: t(
    "Lists what the caller may do in a namespace. The answer can be incomplete depending on the authorizers, so use it to adapt user interfaces, not to make access decisions.",
    {
      metadata: f(1, "meta/v1.ObjectMeta", "The object's metadata."),
      spec: f(2, "SelfSubjectRulesReviewSpec", "Which namespace to list the rules for.", {
        ...required,
        omitEmpty: false,
      }),
      status: f(3, "SubjectRulesReviewStatus", "Filled in by the server with the rules that apply."),
    },
  ),
  SelfSubjectRulesReviewSpec: t("The scope of a SelfSubjectRulesReview.", {
    namespace: f(1, "string", "Namespace whose rules are listed."),
  }),
  SubjectAccessReview: t("Asks whether a given user or group may perform an action.", {
    metadata: f(1, "meta/v1.ObjectMeta", "The object's metadata."),
    spec: f(2, "SubjectAccessReviewSpec", "The action to check and the user to check it for.", {
      ...required,
      omitEmpty: false,
    }),
    status: f(3, "SubjectAccessReviewStatus", "Filled in by the server with the decision."),
  }),
  SubjectAccessReviewSpec: t(
    "The action and user of an access check; set exactly one of the resource and non-resource attributes.",
    {
      resourceAttributes: f(1, "ResourceAttributes", "The action, when it targets an API resource.", {
        pointer: true,
      }),
      nonResourceAttributes: f(
        2,
        "NonResourceAttributes",
        "The action, when it targets a non-resource URL path.",
        { pointer: true },
      ),
      user: f(3, "string", "User name to check; with no groups given, the user is treated as being in none."),
      groups: f(4, "[]string", "Groups to check the action for."),
      extra: f(
        5,
        "{}ExtraValue",
        "Extra user attributes, as an authenticator would report them, passed on to the authorizer.",
      ),
      uid: f(6, "string", "UID of the user to check."),
    },
  ),
  SubjectAccessReviewStatus: t("The authorizer's decision on an access check.", {
    allowed: f(1, "bool", "True when the action is permitted.", { omitEmpty: false }),
    denied: f(
      4,
      "bool",
      "True when the action is explicitly refused. With both allowed and denied false, the authorizer has no opinion; denied is never true alongside allowed.",
    ),
    reason: f(2, "string", "Why the action was allowed or refused."),
    evaluationError: f(
      3,
      "string",
      "An error met while deciding; a decision may still have been reached, for example when some roles are missing.",
    ),
  }),
  SubjectRulesReviewStatus: t(
    "The rules that apply to a subject. Rules only add permissions, so any listed rule holds even if the list is incomplete.",
    {
      resourceRules: f(
        1,
        "[]ResourceRule",
        "What the subject may do on resources; unordered and possibly incomplete.",
        { omitEmpty: false },
      ),
      nonResourceRules: f(
        2,
        "[]NonResourceRule",
        "What the subject may do on non-resource paths; unordered and possibly incomplete.",
        { omitEmpty: false },
      ),
      incomplete: f(
        3,
        "bool",
        "True when the lists may miss rules, typically because an authorizer cannot enumerate its rules.",
        { omitEmpty: false },
      ),
      evaluationError: f(
        4,
        "string",
        "An error met while listing rules, in which case the lists may be incomplete.",
      ),
    },
  ),
});
