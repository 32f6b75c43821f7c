// CEL's `authorizer` for admission policies: `authorizer.group(g).resource(r).namespace(ns)
// .name(n).subresource(s).check(verb)`, `authorizer.path(p).check(verb)`,
// `authorizer.serviceAccount(ns, name)`, `authorizer.requestResource`, and a Decision's
// `allowed()` and `reason()`. CEL evaluates synchronously while authorizers may answer later, so a
// check not answered yet is recorded and the evaluation repeated once the answers are in (the
// expression is pure, so the repeat sees the same world plus the answers).

import { CelObject, type CustomFunction, type DeclType } from "../../../backends/cel/index.ts";
import type { UserInfo } from "../../../gateway/pipeline/index.ts";
import type { Authorizer, Attributes as AuthzAttributes } from "../../authorization/index.ts";

class AuthorizerValue extends CelObject {
  user: UserInfo | undefined;
  session: AuthorizationSession | undefined;
}

interface CheckParts {
  readonly path?: string;
  readonly group?: string;
  readonly resource?: string;
  readonly subresource?: string;
  readonly namespace?: string;
  readonly name?: string;
}

class CheckValue extends CelObject {
  owner: AuthorizerValue | undefined;
  parts: CheckParts = {};
}
class PathCheckValue extends CheckValue {}
class GroupCheckValue extends CheckValue {}
class ResourceCheckValue extends CheckValue {}

class DecisionValue extends CelObject {
  allowed = false;
  reason = "";
}

const objectType = (
  name: string,
  ctor: new () => CelObject,
  fields: [string, DeclType][] = [],
): DeclType => ({
  kind: "object",
  name,
  ctor,
  fields: new Map(fields.map(([n, type]) => [n, { jsonName: n, celName: n, type, required: true }])),
  minSize: 1,
  maxElements: 0,
});

/** Upstream validates serviceAccount()'s arguments as object names. */
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

const DECISION = objectType("kubernetes.authorization.Decision", DecisionValue);
const PATH_CHECK = objectType("kubernetes.authorization.PathCheck", PathCheckValue);
const GROUP_CHECK = objectType("kubernetes.authorization.GroupCheck", GroupCheckValue);
const RESOURCE_CHECK = objectType("kubernetes.authorization.ResourceCheck", ResourceCheckValue);
export const AUTHORIZER_TYPE = objectType("kubernetes.authorization.Authorizer", AuthorizerValue, [
  ["requestResource", RESOURCE_CHECK],
]);
export const AUTHORIZER_TYPES: readonly DeclType[] = [DECISION, PATH_CHECK, GROUP_CHECK, RESOURCE_CHECK];

/** A check CEL asked for whose answer is not known yet. */
export class PendingAuthorization extends Error {}

/** The answers of one admission request's authorizer checks. */
export class AuthorizationSession {
  readonly #authorizer: Authorizer;
  readonly #answers = new Map<string, { allowed: boolean; reason: string; error?: string }>();
  readonly #pending = new Map<string, AuthzAttributes>();

  constructor(authorizer: Authorizer) {
    this.#authorizer = authorizer;
  }

  answer(attributes: AuthzAttributes): DecisionValue {
    const key = JSON.stringify([
      attributes.user.username,
      attributes.user.groups,
      attributes.verb,
      attributes.path,
      attributes.apiGroup,
      attributes.resource,
      attributes.subresource,
      attributes.namespace,
      attributes.name,
    ]);
    const known = this.#answers.get(key);
    if (!known) {
      this.#pending.set(key, attributes);
      throw new PendingAuthorization("authorization pending");
    }
    if (known.error !== undefined) throw new Error(`error in authorization check: ${known.error}`);
    const d = new DecisionValue();
    d.allowed = known.allowed;
    d.reason = known.reason;
    return d;
  }

  get hasPending(): boolean {
    return this.#pending.size > 0;
  }

  /** Asks the authorizer every pending check. */
  async resolve(): Promise<void> {
    const pending = [...this.#pending];
    this.#pending.clear();
    await Promise.all(
      pending.map(async ([key, attributes]) => {
        try {
          const result = await this.#authorizer.authorize(attributes);
          this.#answers.set(key, { allowed: result.decision === "allow", reason: result.reason });
        } catch (err) {
          // A failing authorizer is an evaluation error of the expression, not of the request.
          const error = err instanceof Error ? err.message : String(err);
          this.#answers.set(key, { allowed: false, reason: "", error });
        }
      }),
    );
  }
}

/** The `authorizer` variable for a request by `user`, with `requestResource` its own resource. */
export function authorizerValue(
  session: AuthorizationSession,
  user: UserInfo,
  request: { group: string; resource: string; subresource: string; namespace: string; name: string },
): CelObject {
  const az = new AuthorizerValue();
  az.user = user;
  az.session = session;
  const rr = new ResourceCheckValue();
  rr.owner = az;
  rr.parts = {
    group: request.group,
    resource: request.resource,
    subresource: request.subresource,
    namespace: request.namespace,
    name: request.name,
  };
  az.set("requestResource", rr);
  return az;
}

function derive<T extends CheckValue>(
  ctor: new () => T,
  from: CheckValue | AuthorizerValue,
  parts: CheckParts,
): T {
  const c = new ctor();
  c.owner = from instanceof AuthorizerValue ? from : from.owner;
  c.parts = from instanceof CheckValue ? { ...from.parts, ...parts } : parts;
  return c;
}

function check(c: CheckValue, verb: string): DecisionValue {
  const owner = c.owner;
  if (!owner?.session || !owner.user) throw new Error("authorizer is not available");
  const p = c.parts;
  const isResource = p.path === undefined;
  return owner.session.answer({
    user: owner.user,
    verb,
    isResourceRequest: isResource,
    path: p.path ?? "",
    namespace: p.namespace ?? "",
    apiGroup: p.group ?? "",
    apiVersion: "*",
    resource: p.resource ?? "",
    subresource: p.subresource ?? "",
    name: p.name ?? "",
  });
}

export const AUTHORIZER_FUNCTIONS: readonly CustomFunction[] = [
  {
    signature: "kubernetes.authorization.Authorizer.path(string): kubernetes.authorization.PathCheck",
    handler: (az: AuthorizerValue, path: string) => derive(PathCheckValue, az, { path }),
  },
  {
    signature: "kubernetes.authorization.Authorizer.group(string): kubernetes.authorization.GroupCheck",
    handler: (az: AuthorizerValue, group: string) => derive(GroupCheckValue, az, { group }),
  },
  {
    signature:
      "kubernetes.authorization.Authorizer.serviceAccount(string, string): kubernetes.authorization.Authorizer",
    handler: (az: AuthorizerValue, namespace: string, name: string) => {
      if (!DNS_SUBDOMAIN.test(name) || name.length > 253) throw new Error("Invalid service account name");
      if (!DNS_LABEL.test(namespace) || namespace.length > 63)
        throw new Error("Invalid service account namespace");
      const sa = new AuthorizerValue();
      sa.session = az.session;
      sa.user = {
        username: `system:serviceaccount:${namespace}:${name}`,
        uid: "",
        groups: ["system:serviceaccounts", `system:serviceaccounts:${namespace}`],
        extra: {},
      };
      return sa;
    },
  },
  {
    signature: "kubernetes.authorization.GroupCheck.resource(string): kubernetes.authorization.ResourceCheck",
    handler: (g: GroupCheckValue, resource: string) => derive(ResourceCheckValue, g, { resource }),
  },
  {
    signature:
      "kubernetes.authorization.ResourceCheck.subresource(string): kubernetes.authorization.ResourceCheck",
    handler: (r: ResourceCheckValue, subresource: string) => derive(ResourceCheckValue, r, { subresource }),
  },
  {
    signature:
      "kubernetes.authorization.ResourceCheck.namespace(string): kubernetes.authorization.ResourceCheck",
    handler: (r: ResourceCheckValue, namespace: string) => derive(ResourceCheckValue, r, { namespace }),
  },
  {
    signature: "kubernetes.authorization.ResourceCheck.name(string): kubernetes.authorization.ResourceCheck",
    handler: (r: ResourceCheckValue, name: string) => derive(ResourceCheckValue, r, { name }),
  },
  {
    signature: "kubernetes.authorization.ResourceCheck.check(string): kubernetes.authorization.Decision",
    handler: (r: ResourceCheckValue, verb: string) => check(r, verb),
  },
  {
    signature: "kubernetes.authorization.PathCheck.check(string): kubernetes.authorization.Decision",
    handler: (p: PathCheckValue, verb: string) => check(p, verb),
  },
  {
    signature: "kubernetes.authorization.Decision.allowed(): bool",
    handler: (d: DecisionValue) => d.allowed,
  },
  {
    signature: "kubernetes.authorization.Decision.reason(): string",
    handler: (d: DecisionValue) => d.reason,
  },
];
