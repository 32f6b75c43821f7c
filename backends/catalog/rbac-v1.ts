// rbac/v1: roles (sets of permissions) and the bindings that grant them to users, groups and
// service accounts.
import { f, pkg, required, t } from "./model.ts";

export const RBAC_V1 = pkg("rbac/v1", "k8s.io.api.rbac.v1", {
  AggregationRule: t("Selects the ClusterRoles whose rules are combined into an aggregated ClusterRole.", {
    clusterRoleSelectors: f(
      1,
      "[]meta/v1.LabelSelector",
      "Label selectors; the rules of every ClusterRole matched by any of them are added.",
    ),
  }),
  ClusterRole: t(
    "A named set of permission rules valid across the cluster, granted through RoleBindings or ClusterRoleBindings.",
    {
      metadata: f(1, "meta/v1.ObjectMeta", "The object's metadata: name, labels, annotations and so on."),
      rules: f(2, "[]PolicyRule", "The permissions this role grants.", { omitEmpty: false }),
      aggregationRule: f(
        3,
        "AggregationRule",
        "When set, a controller fills and maintains `rules` from the matching ClusterRoles, overwriting manual edits.",
        { pointer: true },
      ),
    },
  ),
  ClusterRoleBinding: t("Grants a ClusterRole to subjects in every namespace of the cluster.", {
    metadata: f(1, "meta/v1.ObjectMeta", "The object's metadata: name, labels, annotations and so on."),
    subjects: f(2, "[]Subject", "Who receives the role's permissions."),
    roleRef: f(
      3,
      "RoleRef",
      "The ClusterRole being granted; requests are denied with an error if it cannot be found.",
      { ...required, omitEmpty: false },
    ),
  }),
  PolicyRule: t(
    "One permission: verbs allowed on some resources or non-resource paths, regardless of who or where.",
    {
      verbs: f(1, "[]string", "Actions allowed, such as get, list or create; `*` means every verb.", {
        ...required,
        omitEmpty: false,
      }),
      apiGroups: f(
        2,
        "[]string",
        "API groups the resources belong to; the empty string is the core group and `*` is any group.",
      ),
      resources: f(3, "[]string", "Resource types covered, such as `pods` or `pods/log`; `*` means all."),
      resourceNames: f(4, "[]string", "Restrict the rule to these object names; empty means any name."),
      nonResourceURLs: f(
        5,
        "[]string",
        "URL paths (such as `/healthz`) covered instead of resources; a trailing `*` matches a prefix. Only meaningful in ClusterRoles bound cluster-wide.",
      ),
    },
  ),
  Role: t("A named set of permission rules that applies within the Role's own namespace.", {
    metadata: f(1, "meta/v1.ObjectMeta", "The object's metadata: name, namespace, labels and so on."),
    rules: f(2, "[]PolicyRule", "The permissions this role grants.", { omitEmpty: false }),
  }),
  RoleBinding: t(
    "Grants a Role, or a ClusterRole, to subjects; the permissions apply only in the binding's namespace.",
    {
      metadata: f(1, "meta/v1.ObjectMeta", "The object's metadata: name, namespace, labels and so on."),
      subjects: f(2, "[]Subject", "Who receives the role's permissions."),
      roleRef: f(
        3,
        "RoleRef",
        "The Role in this namespace, or ClusterRole, being granted; requests are denied with an error if it cannot be found.",
        { ...required, omitEmpty: false },
      ),
    },
  ),
  RoleRef: t(
    "Identifies the role a binding grants.",
    {
      apiGroup: f(1, "string", "API group of the role, normally the RBAC group.", {
        ...required,
        omitEmpty: false,
      }),
      kind: f(2, "string", "Role or ClusterRole.", { ...required, omitEmpty: false }),
      name: f(3, "string", "Name of the role.", { ...required, omitEmpty: false }),
    },
    { structType: "atomic" },
  ),
  Subject: t(
    "A user, group or service account that a binding applies to.",
    {
      kind: f(
        1,
        "string",
        "What sort of subject this is: User, Group or ServiceAccount. Unknown kinds make authorization fail.",
        { ...required, omitEmpty: false },
      ),
      apiGroup: f(
        2,
        "string",
        "API group of the subject: empty for ServiceAccount, the RBAC group for User and Group by default.",
      ),
      name: f(3, "string", "Name of the user, group or service account.", { ...required, omitEmpty: false }),
      namespace: f(4, "string", "Namespace of a ServiceAccount subject; must be empty for users and groups."),
    },
    { structType: "atomic" },
  ),
});
