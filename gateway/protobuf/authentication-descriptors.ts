// Messages and kinds of authentication (TokenRequest, TokenReview, SelfSubjectReview), from
// upstream's IDL facts and the Go JSON tags (see descriptor-model.ts). SelfSubjectReview reached
// v1 in 1.28 with the fields it has in v1beta1; the reference IDL (1.27) predates it.
import {
  AUTHENTICATION_V1,
  AUTHENTICATION_V1ALPHA1,
  AUTHENTICATION_V1BETA1,
  bool,
  extraValue,
  int64,
  type KindDescriptor,
  type MessageDescriptor,
  messageMap,
  msg,
  OBJECT_META,
  str,
  strings,
  TIME,
} from "./descriptor-model.ts";

/** UserInfo, TokenReview and its spec and status: the same in v1 and v1beta1. */
function tokenReviewMessages(pkg: string): MessageDescriptor[] {
  return [
    extraValue(pkg),
    {
      name: `${pkg}.UserInfo`,
      fields: [
        str("username", 1),
        str("uid", 2),
        strings("groups", 3),
        messageMap("extra", 4, `${pkg}.ExtraValue`),
      ],
    },
    {
      name: `${pkg}.TokenReview`,
      fields: [
        msg("metadata", 1, OBJECT_META),
        msg("spec", 2, `${pkg}.TokenReviewSpec`),
        msg("status", 3, `${pkg}.TokenReviewStatus`),
      ],
    },
    { name: `${pkg}.TokenReviewSpec`, fields: [str("token", 1), strings("audiences", 2)] },
    {
      name: `${pkg}.TokenReviewStatus`,
      fields: [
        bool("authenticated", 1),
        msg("user", 2, `${pkg}.UserInfo`),
        strings("audiences", 4),
        str("error", 3),
      ],
    },
  ];
}

/** SelfSubjectReview and its status, which holds a v1 UserInfo in every version. */
function selfSubjectReviewMessages(pkg: string): MessageDescriptor[] {
  return [
    {
      name: `${pkg}.SelfSubjectReview`,
      fields: [msg("metadata", 1, OBJECT_META), msg("status", 2, `${pkg}.SelfSubjectReviewStatus`)],
    },
    {
      name: `${pkg}.SelfSubjectReviewStatus`,
      fields: [msg("userInfo", 1, `${AUTHENTICATION_V1}.UserInfo`)],
    },
  ];
}

export const AUTHENTICATION_MESSAGES: readonly MessageDescriptor[] = [
  ...tokenReviewMessages(AUTHENTICATION_V1),
  ...tokenReviewMessages(AUTHENTICATION_V1BETA1),
  ...selfSubjectReviewMessages(AUTHENTICATION_V1),
  ...selfSubjectReviewMessages(AUTHENTICATION_V1BETA1),
  ...selfSubjectReviewMessages(AUTHENTICATION_V1ALPHA1),
  {
    name: `${AUTHENTICATION_V1}.TokenRequest`,
    fields: [
      msg("metadata", 1, OBJECT_META),
      msg("spec", 2, `${AUTHENTICATION_V1}.TokenRequestSpec`),
      msg("status", 3, `${AUTHENTICATION_V1}.TokenRequestStatus`),
    ],
  },
  {
    // No omitempty here: unset fields are `null` in the JSON.
    name: `${AUTHENTICATION_V1}.TokenRequestSpec`,
    fields: [
      strings("audiences", 1, { omitEmpty: false }),
      int64("expirationSeconds", 4, { pointer: true, omitEmpty: false }),
      msg("boundObjectRef", 3, `${AUTHENTICATION_V1}.BoundObjectReference`, {
        pointer: true,
        omitEmpty: false,
      }),
    ],
  },
  {
    name: `${AUTHENTICATION_V1}.TokenRequestStatus`,
    fields: [str("token", 1, { omitEmpty: false }), msg("expirationTimestamp", 2, TIME)],
  },
  {
    name: `${AUTHENTICATION_V1}.BoundObjectReference`,
    fields: [str("kind", 1), str("apiVersion", 2), str("name", 3), str("uid", 4, { protoName: "uID" })],
  },
];

const kind = (name: string, version: string, pkg: string): KindDescriptor => ({
  kind: name,
  group: "authentication",
  version,
  message: `${pkg}.${name}`,
});

export const AUTHENTICATION_KINDS: readonly KindDescriptor[] = [
  kind("TokenRequest", "v1", AUTHENTICATION_V1),
  kind("TokenReview", "v1", AUTHENTICATION_V1),
  kind("TokenReview", "v1beta1", AUTHENTICATION_V1BETA1),
  kind("SelfSubjectReview", "v1", AUTHENTICATION_V1),
  kind("SelfSubjectReview", "v1beta1", AUTHENTICATION_V1BETA1),
  kind("SelfSubjectReview", "v1alpha1", AUTHENTICATION_V1ALPHA1),
];
