// The access reviews of authorization.<domain>/v1: SubjectAccessReview (any user, cluster
// wide), LocalSubjectAccessReview (any user, one namespace), SelfSubjectAccessReview (the
// caller) and SelfSubjectRulesReview (the caller's rules in a namespace). Each asks the same
// authorizer chain that guards requests.

import { asObject as obj, asString as str } from "../../backends/common/json.ts";
import type { Naming } from "../../backends/naming/index.ts";
import type { FieldError, JsonObject } from "../../backends/registry/index.ts";
import type { Attributes, Authorizer, RulesResult } from "../../plugins/authorization/index.ts";
import type { UserInfo } from "../pipeline/index.ts";
import { errors } from "../request/api-error.ts";
import type { VirtualResource } from "../routing/resources.ts";
import { reviewResponse, reviewSchema } from "./schema.ts";

type Obj = Record<string, unknown>;

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
}

function extraOf(value: unknown): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [k, v] of Object.entries(obj(value) ?? {})) out[k] = strings(v);
  return out;
}

const RESOURCE_ATTRIBUTE_FIELDS = {
  namespace: true,
  verb: true,
  group: true,
  version: true,
  resource: true,
  subresource: true,
  name: true,
} as const;
const NON_RESOURCE_ATTRIBUTE_FIELDS = { path: true, verb: true } as const;
const ATTRIBUTE_SPEC_FIELDS = {
  resourceAttributes: RESOURCE_ATTRIBUTE_FIELDS,
  nonResourceAttributes: NON_RESOURCE_ATTRIBUTE_FIELDS,
} as const;
const USER_SPEC_FIELDS = { user: true, groups: true, uid: true, extra: true } as const;

/** Exactly one of the two attribute blocks, as upstream's validation words it. */
function checkAttributes(spec: Obj, path: string, allowNonResource: boolean): FieldError[] {
  const resource = spec.resourceAttributes;
  const nonResource = spec.nonResourceAttributes;
  if (resource != null && nonResource != null) {
    return [
      {
        field: `${path}.nonResourceAttributes`,
        type: "FieldValueInvalid",
        value: nonResource,
        detail: "cannot be specified in combination with resourceAttributes",
      },
    ];
  }
  if (nonResource != null && !allowNonResource) {
    return [
      {
        field: `${path}.nonResourceAttributes`,
        type: "FieldValueInvalid",
        value: nonResource,
        detail: "disallowed on this kind of request",
      },
    ];
  }
  if (resource == null && nonResource == null) {
    return [
      {
        field: `${path}.resourceAttributes`,
        type: "FieldValueInvalid",
        value: null,
        detail: "exactly one of nonResourceAttributes or resourceAttributes must be specified",
      },
    ];
  }
  return [];
}

function attributesOf(spec: Obj, user: UserInfo): Attributes {
  const r = obj(spec.resourceAttributes);
  if (r) {
    return {
      user,
      verb: str(r.verb),
      isResourceRequest: true,
      path: "",
      namespace: str(r.namespace),
      apiGroup: str(r.group),
      apiVersion: str(r.version),
      resource: str(r.resource),
      subresource: str(r.subresource),
      name: str(r.name),
    };
  }
  const n = obj(spec.nonResourceAttributes) ?? {};
  return {
    user,
    verb: str(n.verb),
    isResourceRequest: false,
    path: str(n.path),
    namespace: "",
    apiGroup: "",
    apiVersion: "",
    resource: "",
    subresource: "",
    name: "",
  };
}

async function decide(authorizer: Authorizer, attributes: Attributes): Promise<Obj> {
  try {
    const result = await authorizer.authorize(attributes);
    return {
      allowed: result.decision === "allow",
      ...(result.decision === "deny" ? { denied: true } : {}),
      ...(result.reason ? { reason: result.reason } : {}),
    };
  } catch (err) {
    return { allowed: false, evaluationError: err instanceof Error ? err.message : String(err) };
  }
}

/** The user a (Local)SubjectAccessReview asks about; at least a user or a group is required. */
function subjectOf(spec: Obj, causes: FieldError[]): UserInfo {
  if (str(spec.user) === "" && strings(spec.groups).length === 0) {
    causes.push({
      field: "spec.user",
      type: "FieldValueInvalid",
      value: str(spec.user),
      detail: "at least one of user or group must be specified",
    });
  }
  return {
    username: str(spec.user),
    uid: str(spec.uid),
    groups: strings(spec.groups),
    extra: extraOf(spec.extra),
  };
}

function requireUser(user: UserInfo | undefined): UserInfo {
  if (!user) throw errors.internal("no user information found for the request");
  return user;
}

export interface AccessReviewOptions {
  readonly naming: Naming;
  readonly authorizer: Authorizer;
  /** The caller's rules in a namespace, merged over the authorizers that can list them. */
  readonly rulesFor: (user: UserInfo, namespace: string) => Promise<RulesResult>;
}

export function accessReviews(options: AccessReviewOptions): VirtualResource[] {
  const group = options.naming.group("authorization");
  const versions = [{ name: "v1", served: true }];
  const invalid = (kind: string, causes: FieldError[]) => errors.invalid({ group, kind }, "", causes);
  const base = { apiVersion: true, kind: true, metadata: true, status: true } as const;

  const subjectAccessReview: VirtualResource = {
    schema: reviewSchema({ group, versions, kind: "SubjectAccessReview" }),
    knownFields: { ...base, spec: { ...ATTRIBUTE_SPEC_FIELDS, ...USER_SPEC_FIELDS } },
    async create(_ctx, body) {
      const spec = obj(body.spec) ?? {};
      const causes = checkAttributes(spec, "spec", true);
      const user = subjectOf(spec, causes);
      if (causes.length > 0) throw invalid("SubjectAccessReview", causes);
      return reviewResponse(body, await decide(options.authorizer, attributesOf(spec, user)));
    },
  };

  const localSubjectAccessReview: VirtualResource = {
    schema: reviewSchema({ group, versions, kind: "LocalSubjectAccessReview", namespaced: true }),
    knownFields: { ...base, spec: { ...ATTRIBUTE_SPEC_FIELDS, ...USER_SPEC_FIELDS } },
    async create(_ctx, body, _version, namespace) {
      const spec = obj(body.spec) ?? {};
      const causes = checkAttributes(spec, "spec", false);
      const user = subjectOf(spec, causes);
      const attributesNamespace = str(obj(spec.resourceAttributes)?.namespace);
      const metaNamespace = str(obj(body.metadata)?.namespace);
      if (metaNamespace !== "" && metaNamespace !== namespace) {
        throw errors.badRequest(
          `the namespace of the provided object does not match the namespace sent on the request`,
        );
      }
      if (causes.length === 0 && attributesNamespace !== namespace) {
        causes.push({
          field: "spec.resourceAttributes.namespace",
          type: "FieldValueInvalid",
          value: attributesNamespace,
          detail: "must match metadata.namespace",
        });
      }
      if (causes.length > 0) throw invalid("LocalSubjectAccessReview", causes);
      const response = reviewResponse(body, await decide(options.authorizer, attributesOf(spec, user)));
      return { ...response, metadata: { ...(response.metadata as Obj), namespace } };
    },
  };

  const selfSubjectAccessReview: VirtualResource = {
    schema: reviewSchema({ group, versions, kind: "SelfSubjectAccessReview" }),
    knownFields: { ...base, spec: ATTRIBUTE_SPEC_FIELDS },
    async create(ctx, body) {
      const spec = obj(body.spec) ?? {};
      const causes = checkAttributes(spec, "spec", true);
      if (causes.length > 0) throw invalid("SelfSubjectAccessReview", causes);
      const user = requireUser(ctx.user);
      return reviewResponse(body, await decide(options.authorizer, attributesOf(spec, user)));
    },
  };

  const selfSubjectRulesReview: VirtualResource = {
    schema: reviewSchema({ group, versions, kind: "SelfSubjectRulesReview" }),
    knownFields: { ...base, spec: { namespace: true } },
    async create(ctx, body) {
      const spec = obj(body.spec) ?? {};
      const user = requireUser(ctx.user);
      const rules = await options.rulesFor(user, str(spec.namespace));
      const status: JsonObject = {
        resourceRules: rules.resourceRules,
        nonResourceRules: rules.nonResourceRules,
        incomplete: rules.incomplete,
        ...(rules.evaluationError ? { evaluationError: rules.evaluationError } : {}),
      };
      return reviewResponse(body, status);
    },
  };

  return [subjectAccessReview, localSubjectAccessReview, selfSubjectAccessReview, selfSubjectRulesReview];
}

/** The rules of every authorizer that can list them; `incomplete` when one cannot. */
export function mergedRules(authorizers: readonly Authorizer[]) {
  return async (user: UserInfo, namespace: string): Promise<RulesResult> => {
    const resourceRules: RulesResult["resourceRules"][number][] = [];
    const nonResourceRules: RulesResult["nonResourceRules"][number][] = [];
    const problems: string[] = [];
    let incomplete = false;
    for (const a of authorizers) {
      if (!a.rulesFor) {
        incomplete = true;
        continue;
      }
      try {
        const r = await a.rulesFor(user, namespace);
        resourceRules.push(...r.resourceRules);
        nonResourceRules.push(...r.nonResourceRules);
        if (r.incomplete) incomplete = true;
        if (r.evaluationError) problems.push(r.evaluationError);
      } catch (err) {
        incomplete = true;
        problems.push(err instanceof Error ? err.message : String(err));
      }
    }
    return {
      resourceRules,
      nonResourceRules,
      incomplete,
      ...(problems.length > 0 ? { evaluationError: problems.join("; ") } : {}),
    };
  };
}
