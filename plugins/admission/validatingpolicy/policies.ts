// ValidatingAdmissionPolicy and ValidatingAdmissionPolicyBinding objects as the plugin uses them:
// matching criteria, parameters, and each expression compiled once per object revision.

import type { Program } from "../../../backends/cel/index.ts";
import { asArray as list, objectOrEmpty as obj } from "../../../backends/common/json.ts";
import { compileAdmission } from "../cel/index.ts";
import type { JsonObject } from "../index.ts";
import { type Rule, ruleOf } from "../matching.ts";

export interface MatchResources {
  readonly namespaceSelector: unknown;
  readonly objectSelector: unknown;
  readonly resourceRules: readonly Rule[];
  readonly excludeResourceRules: readonly Rule[];
  readonly matchPolicy: string;
}

/** An expression with its program, or why it does not compile. */
export interface Compiled {
  readonly expression: string;
  readonly program?: Program;
  readonly error?: string;
}

export interface Validation {
  readonly rule: Compiled;
  readonly message: string;
  readonly messageExpression?: Compiled;
  readonly reason: string;
}

export interface Policy {
  readonly name: string;
  readonly failurePolicy: "Fail" | "Ignore";
  readonly paramKind?: { readonly apiVersion: string; readonly kind: string };
  readonly matchConstraints: MatchResources;
  /** CEL preconditions, evaluated per binding (with its params): a false one skips the binding. */
  readonly matchConditions: readonly Compiled[];
  readonly validations: readonly Validation[];
  readonly auditAnnotations: readonly { readonly key: string; readonly value: Compiled }[];
}

export interface Binding {
  readonly name: string;
  readonly policyName: string;
  readonly paramRef?: { readonly name: string; readonly namespace: string };
  readonly matchResources?: MatchResources;
  readonly validationActions: readonly string[];
}

const str = (v: unknown, fallback = ""): string => (typeof v === "string" ? v : fallback);

/** Audit annotation values may be strings or null, so they are compiled with no result type. */
function compiled(expression: string, resultType?: "bool" | "string", withAuthorizer = true): Compiled {
  const result = compileAdmission(expression, resultType, withAuthorizer);
  return result.ok ? { expression, program: result.program } : { expression, error: result.error.message };
}

function matchResources(raw: unknown): MatchResources {
  const m = obj(raw);
  return {
    namespaceSelector: m.namespaceSelector ?? {},
    objectSelector: m.objectSelector ?? {},
    resourceRules: list(m.resourceRules).map(ruleOf),
    excludeResourceRules: list(m.excludeResourceRules).map(ruleOf),
    matchPolicy: str(m.matchPolicy, "Equivalent"),
  };
}

const policies = new WeakMap<object, Policy>();

/** The policy of a stored object; compiled once per object (informer objects change identity on change). */
export function policyOf(object: JsonObject): Policy {
  const known = policies.get(object);
  if (known) return known;
  const spec = obj(object.spec);
  const paramKind = spec.paramKind === undefined ? undefined : obj(spec.paramKind);
  const policy: Policy = {
    name: str(obj(object.metadata).name),
    failurePolicy: spec.failurePolicy === "Ignore" ? "Ignore" : "Fail",
    ...(paramKind ? { paramKind: { apiVersion: str(paramKind.apiVersion), kind: str(paramKind.kind) } } : {}),
    matchConstraints: matchResources(spec.matchConstraints),
    matchConditions: list(spec.matchConditions).map((raw) => compiled(str(obj(raw).expression), "bool")),
    validations: list(spec.validations).map((raw) => {
      const v = obj(raw);
      const messageExpression = str(v.messageExpression);
      return {
        rule: compiled(str(v.expression), "bool"),
        message: str(v.message),
        ...(messageExpression ? { messageExpression: compiled(messageExpression, "string", false) } : {}),
        reason: str(v.reason),
      };
    }),
    auditAnnotations: list(spec.auditAnnotations).map((raw) => {
      const a = obj(raw);
      return { key: str(a.key), value: compiled(str(a.valueExpression)) };
    }),
  };
  policies.set(object, policy);
  return policy;
}

export function bindingOf(object: JsonObject): Binding {
  const spec = obj(object.spec);
  const paramRef = spec.paramRef === undefined ? undefined : obj(spec.paramRef);
  const actions = list(spec.validationActions).filter((x): x is string => typeof x === "string");
  return {
    name: str(obj(object.metadata).name),
    policyName: str(spec.policyName),
    ...(paramRef ? { paramRef: { name: str(paramRef.name), namespace: str(paramRef.namespace) } } : {}),
    ...(spec.matchResources !== undefined ? { matchResources: matchResources(spec.matchResources) } : {}),
    // Bindings written before validationActions existed deny, as they did then.
    validationActions: actions.length > 0 ? actions : ["Deny"],
  };
}
