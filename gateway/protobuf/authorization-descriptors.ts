// Messages and kinds of authorization/v1 (the access reviews and the rules review), from
// upstream's IDL facts and the Go JSON tags (see descriptor-model.ts).
import {
  AUTHORIZATION_V1,
  bool,
  extraValue,
  type KindDescriptor,
  type MessageDescriptor,
  messageMap,
  msg,
  msgs,
  OBJECT_META,
  str,
  strings,
} from "./descriptor-model.ts";

const P = AUTHORIZATION_V1;

/** metadata, spec, status: the shape of every review kind. */
function review(kind: string, spec: string, status: string): MessageDescriptor {
  return {
    name: `${P}.${kind}`,
    fields: [
      msg("metadata", 1, OBJECT_META),
      msg("spec", 2, `${P}.${spec}`),
      msg("status", 3, `${P}.${status}`),
    ],
  };
}

export const AUTHORIZATION_MESSAGES: readonly MessageDescriptor[] = [
  extraValue(P),
  review("SubjectAccessReview", "SubjectAccessReviewSpec", "SubjectAccessReviewStatus"),
  review("LocalSubjectAccessReview", "SubjectAccessReviewSpec", "SubjectAccessReviewStatus"),
  review("SelfSubjectAccessReview", "SelfSubjectAccessReviewSpec", "SubjectAccessReviewStatus"),
  review("SelfSubjectRulesReview", "SelfSubjectRulesReviewSpec", "SubjectRulesReviewStatus"),
  {
    name: `${P}.ResourceAttributes`,
    fields: [
      str("namespace", 1),
      str("verb", 2),
      str("group", 3),
      str("version", 4),
      str("resource", 5),
      str("subresource", 6),
      str("name", 7),
    ],
  },
  { name: `${P}.NonResourceAttributes`, fields: [str("path", 1), str("verb", 2)] },
  {
    name: `${P}.SubjectAccessReviewSpec`,
    fields: [
      msg("resourceAttributes", 1, `${P}.ResourceAttributes`, { pointer: true }),
      msg("nonResourceAttributes", 2, `${P}.NonResourceAttributes`, { pointer: true }),
      str("user", 3),
      strings("groups", 4),
      messageMap("extra", 5, `${P}.ExtraValue`),
      str("uid", 6),
    ],
  },
  {
    name: `${P}.SelfSubjectAccessReviewSpec`,
    fields: [
      msg("resourceAttributes", 1, `${P}.ResourceAttributes`, { pointer: true }),
      msg("nonResourceAttributes", 2, `${P}.NonResourceAttributes`, { pointer: true }),
    ],
  },
  {
    name: `${P}.SubjectAccessReviewStatus`,
    fields: [
      bool("allowed", 1, { omitEmpty: false }),
      bool("denied", 4),
      str("reason", 2),
      str("evaluationError", 3),
    ],
  },
  { name: `${P}.SelfSubjectRulesReviewSpec`, fields: [str("namespace", 1)] },
  {
    name: `${P}.SubjectRulesReviewStatus`,
    fields: [
      msgs("resourceRules", 1, `${P}.ResourceRule`, { omitEmpty: false }),
      msgs("nonResourceRules", 2, `${P}.NonResourceRule`, { omitEmpty: false }),
      bool("incomplete", 3, { omitEmpty: false }),
      str("evaluationError", 4),
    ],
  },
  {
    name: `${P}.ResourceRule`,
    fields: [
      strings("verbs", 1, { omitEmpty: false }),
      strings("apiGroups", 2),
      strings("resources", 3),
      strings("resourceNames", 4),
    ],
  },
  {
    name: `${P}.NonResourceRule`,
    fields: [strings("verbs", 1, { omitEmpty: false }), strings("nonResourceURLs", 2)],
  },
];

export const AUTHORIZATION_KINDS: readonly KindDescriptor[] = [
  "SubjectAccessReview",
  "LocalSubjectAccessReview",
  "SelfSubjectAccessReview",
  "SelfSubjectRulesReview",
].map((kind) => ({ kind, group: "authorization", version: "v1", message: `${P}.${kind}` }));
