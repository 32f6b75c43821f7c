// Messages and kinds of rbac.authorization/v1 (Role, ClusterRole, their bindings and lists),
// from upstream's IDL facts and the Go JSON tags (see descriptor-model.ts).
import {
  type KindDescriptor,
  list,
  META_V1,
  type MessageDescriptor,
  msg,
  msgs,
  OBJECT_META,
  RBAC_V1,
  str,
  strings,
} from "./descriptor-model.ts";

const POLICY_RULE = `${RBAC_V1}.PolicyRule`;
const SUBJECT = `${RBAC_V1}.Subject`;
const ROLE_REF = `${RBAC_V1}.RoleRef`;

export const RBAC_MESSAGES: readonly MessageDescriptor[] = [
  {
    name: POLICY_RULE,
    fields: [
      // The only rule field without omitempty.
      strings("verbs", 1, { omitEmpty: false }),
      strings("apiGroups", 2),
      strings("resources", 3),
      strings("resourceNames", 4),
      strings("nonResourceURLs", 5),
    ],
  },
  {
    name: SUBJECT,
    fields: [
      str("kind", 1, { omitEmpty: false }),
      str("apiGroup", 2),
      str("name", 3, { omitEmpty: false }),
      str("namespace", 4),
    ],
  },
  {
    name: ROLE_REF,
    fields: [
      str("apiGroup", 1, { omitEmpty: false }),
      str("kind", 2, { omitEmpty: false }),
      str("name", 3, { omitEmpty: false }),
    ],
  },
  {
    name: `${RBAC_V1}.Role`,
    fields: [msg("metadata", 1, OBJECT_META), msgs("rules", 2, POLICY_RULE, { omitEmpty: false })],
  },
  {
    name: `${RBAC_V1}.ClusterRole`,
    fields: [
      msg("metadata", 1, OBJECT_META),
      msgs("rules", 2, POLICY_RULE, { omitEmpty: false }),
      msg("aggregationRule", 3, `${RBAC_V1}.AggregationRule`, { pointer: true }),
    ],
  },
  {
    name: `${RBAC_V1}.AggregationRule`,
    fields: [msgs("clusterRoleSelectors", 1, `${META_V1}.LabelSelector`)],
  },
  {
    name: `${RBAC_V1}.RoleBinding`,
    fields: [msg("metadata", 1, OBJECT_META), msgs("subjects", 2, SUBJECT), msg("roleRef", 3, ROLE_REF)],
  },
  {
    name: `${RBAC_V1}.ClusterRoleBinding`,
    fields: [msg("metadata", 1, OBJECT_META), msgs("subjects", 2, SUBJECT), msg("roleRef", 3, ROLE_REF)],
  },
  list(`${RBAC_V1}.RoleList`, `${RBAC_V1}.Role`),
  list(`${RBAC_V1}.ClusterRoleList`, `${RBAC_V1}.ClusterRole`),
  list(`${RBAC_V1}.RoleBindingList`, `${RBAC_V1}.RoleBinding`),
  list(`${RBAC_V1}.ClusterRoleBindingList`, `${RBAC_V1}.ClusterRoleBinding`),
];

export const RBAC_KINDS: readonly KindDescriptor[] = [
  "Role",
  "RoleList",
  "ClusterRole",
  "ClusterRoleList",
  "RoleBinding",
  "RoleBindingList",
  "ClusterRoleBinding",
  "ClusterRoleBindingList",
].map((kind) => ({ kind, group: "rbac.authorization", version: "v1", message: `${RBAC_V1}.${kind}` }));
