// ValidatingAdmissionPolicy: every binding whose policy and match criteria take in the request has
// the policy's CEL validations evaluated against it (with the binding's parameter object), and
// each failure denied, warned about or audited as the binding's validationActions say.
import { COST_LIMIT_EXCEEDED_MESSAGE, PER_CALL_LIMIT, RUNTIME_CEL_COST_BUDGET } from "../../cel/index.ts";
import {
  AdmissionError,
  type AdmissionPlugin,
  type Attributes,
  forbidden,
  type JsonObject,
  type PluginEnv,
} from "../index.ts";
import { matchingVersion, namespaceSelectorMatches, objectSelectorMatches } from "../matching.ts";
import { AdmissionEvaluator, AuthorizationSession, requestValue } from "./environment.ts";
import {
  type Binding,
  bindingOf,
  type Compiled,
  type MatchResources,
  type Policy,
  policyOf,
} from "./policies.ts";
import { typeCheck } from "./typecheck.ts";

export const PLUGIN_NAME = "ValidatingAdmissionPolicy";

/** Policies never apply to the objects that configure admission (no lock-out). */
const EXEMPT = new Set([
  "mutatingwebhookconfigurations",
  "validatingwebhookconfigurations",
  "validatingadmissionpolicies",
  "validatingadmissionpolicybindings",
]);

const CODES: Readonly<Record<string, number>> = {
  Unauthorized: 401,
  Forbidden: 403,
  RequestEntityTooLarge: 413,
  Invalid: 422,
};

interface Failure {
  readonly policy: string;
  readonly binding: string;
  readonly message: string;
  readonly reason: string;
  readonly expressionIndex?: number;
  readonly actions: readonly string[];
}

const obj = (v: unknown): JsonObject =>
  typeof v === "object" && v !== null && !Array.isArray(v) ? (v as JsonObject) : {};

/** The version the criteria take the request in at, or undefined. */
async function matches(m: MatchResources, a: Attributes, env: PluginEnv): Promise<string | undefined> {
  if (!objectSelectorMatches(m.objectSelector, a)) return undefined;
  if (!(await namespaceSelectorMatches(m.namespaceSelector, a, env.objects))) return undefined;
  if (
    m.excludeResourceRules.length > 0 &&
    matchingVersion(m.excludeResourceRules, m.matchPolicy, a) !== undefined
  )
    return undefined;
  if (m.resourceRules.length === 0) return a.resource.version;
  return matchingVersion(m.resourceRules, m.matchPolicy, a);
}

function atVersion(a: Attributes, object: JsonObject | undefined, version: string): JsonObject | null {
  if (!object) return null;
  if (version === a.storageVersion || object.kind !== a.kind.kind || a.kind.group !== a.resource.group)
    return object;
  return a.convert(object, version);
}

class ConfigurationError extends Error {}

export function createValidatingAdmissionPolicy(env: PluginEnv): AdmissionPlugin {
  const group = env.naming.group("admissionregistration");
  const enabled = env.options.featureGates.ValidatingAdmissionPolicy === true;
  const policyInformer = enabled
    ? env.objects.informer({ group, resource: "validatingadmissionpolicies" })
    : undefined;
  const bindingInformer = enabled
    ? env.objects.informer({ group, resource: "validatingadmissionpolicybindings" })
    : undefined;
  const auditKey = `validation.policy.${env.naming.group("admission")}/validation_failure`;
  const stops: (() => void)[] = [];

  // Type-checking: a policy whose status has not seen its generation gets its warnings written.
  if (policyInformer) {
    const checking = new Set<string>();
    stops.push(
      policyInformer.subscribe((event) => {
        if (event.type === "DELETED") return;
        const policy = event.object as JsonObject;
        const meta = obj(policy.metadata);
        const name = String(meta.name ?? "");
        if (obj(policy.status).observedGeneration === meta.generation || checking.has(name)) return;
        checking.add(name);
        const warnings = typeCheck(policy, env.resources);
        void env.writer
          .update(
            { group, resource: "validatingadmissionpolicies" },
            undefined,
            name,
            (current) => {
              const generation = obj(current.metadata).generation;
              const next = structuredClone(current);
              // Checked against what was read; a newer generation gets its own turn.
              if (generation !== meta.generation) return next;
              next.status = {
                ...obj(next.status),
                observedGeneration: generation,
                typeChecking: { expressionWarnings: warnings },
              };
              return next;
            },
            { subresource: "status" },
          )
          .catch(() => {})
          .finally(() => checking.delete(name));
      }),
    );
  }

  async function paramsFor(policy: Policy, binding: Binding): Promise<unknown> {
    if (!policy.paramKind) return null;
    const { apiVersion, kind } = policy.paramKind;
    const slash = apiVersion.indexOf("/");
    const info = env.resources.byKind(
      slash < 0 ? "" : apiVersion.slice(0, slash),
      apiVersion.slice(slash + 1),
      kind,
    );
    if (!info)
      throw new ConfigurationError(
        `failed to configure policy: failed to find resource referenced by paramKind: '${apiVersion}, Kind=${kind}'`,
      );
    if (!binding.paramRef)
      throw new ConfigurationError(
        "failed to configure binding: paramRef is required when the policy sets paramKind",
      );
    const ref = binding.paramRef;
    const param = await env.objects.get(
      { group: info.group, resource: info.resource },
      info.namespaced ? ref.namespace : undefined,
      ref.name,
    );
    if (!param)
      throw new ConfigurationError(`failed to configure binding: no params found for policy binding`);
    return param;
  }

  /** The failures of one policy through one binding. */
  async function evaluate(
    policy: Policy,
    binding: Binding,
    version: string,
    a: Attributes,
    session: AuthorizationSession,
  ): Promise<Failure[]> {
    const fail = (message: string, reason = "Invalid", expressionIndex?: number): Failure => ({
      policy: policy.name,
      binding: binding.name,
      message,
      reason,
      ...(expressionIndex !== undefined ? { expressionIndex } : {}),
      actions: binding.validationActions,
    });
    let params: unknown;
    try {
      params = await paramsFor(policy, binding);
    } catch (err) {
      if (!(err instanceof ConfigurationError)) throw err;
      return policy.failurePolicy === "Ignore" ? [] : [fail(err.message)];
    }
    const evaluator = new AdmissionEvaluator(
      a,
      {
        object: atVersion(a, a.object, version),
        oldObject: atVersion(a, a.oldObject, version),
        request: requestValue(a, version),
        params,
      },
      session,
    );
    let budget = RUNTIME_CEL_COST_BUDGET;
    const run = async (c: Compiled) => {
      if (!c.program)
        return { ok: false as const, message: `compilation error: ${c.error ?? "invalid expression"}` };
      const result = await evaluator.evaluate(c.program, Math.min(PER_CALL_LIMIT, budget));
      budget -= result.cost;
      if (result.ok) return { ok: true as const, value: result.value };
      const why = result.error.message;
      return {
        ok: false as const,
        message:
          why === COST_LIMIT_EXCEEDED_MESSAGE
            ? why
            : `expression '${c.expression}' resulted in error: ${why}`,
      };
    };
    const failures: Failure[] = [];
    for (const [i, v] of policy.validations.entries()) {
      const outcome = await run(v.rule);
      if (!outcome.ok) {
        if (policy.failurePolicy === "Fail") failures.push(fail(outcome.message, "Invalid", i));
        continue;
      }
      if (outcome.value === true) continue;
      let message = v.message;
      if (v.messageExpression) {
        const m = await run(v.messageExpression);
        if (m.ok && typeof m.value === "string" && m.value.trim() !== "" && !m.value.includes("\n"))
          message = m.value;
      }
      failures.push(fail(message || `failed expression: ${v.rule.expression}`, v.reason || "Invalid", i));
    }
    for (const annotation of policy.auditAnnotations) {
      const outcome = await run(annotation.value);
      if (outcome.ok && typeof outcome.value === "string")
        a.annotate(`${policy.name}/${annotation.key}`, outcome.value);
      else if (!outcome.ok && policy.failurePolicy === "Fail") failures.push(fail(outcome.message));
    }
    return failures;
  }

  async function validate(a: Attributes): Promise<void> {
    if (!policyInformer || !bindingInformer) return;
    if (a.resource.group === group && EXEMPT.has(a.resource.resource)) return;
    await Promise.all([policyInformer.synced, bindingInformer.synced]);
    const bindings = bindingInformer
      .list()
      .map((b) => bindingOf(b as JsonObject))
      .sort((x, y) => (x.name < y.name ? -1 : x.name > y.name ? 1 : 0));
    if (bindings.length === 0) return;
    const session = new AuthorizationSession(env.authorizer);
    const failures: Failure[] = [];
    for (const binding of bindings) {
      const stored = policyInformer.get(undefined, binding.policyName);
      if (!stored) continue;
      const policy = policyOf(stored as JsonObject);
      const version = await matches(policy.matchConstraints, a, env);
      if (version === undefined) continue;
      if (binding.matchResources && (await matches(binding.matchResources, a, env)) === undefined) continue;
      failures.push(...(await evaluate(policy, binding, version, a, session)));
    }
    const audited: JsonObject[] = [];
    let denied: Failure | undefined;
    for (const f of failures) {
      if (f.actions.includes("Deny")) denied ??= f;
      if (f.actions.includes("Warn"))
        a.warn(
          `Validation failed for ValidatingAdmissionPolicy '${f.policy}' with binding '${f.binding}': ${f.message}`,
        );
      if (f.actions.includes("Audit"))
        audited.push({
          message: f.message,
          policy: f.policy,
          binding: f.binding,
          ...(f.expressionIndex !== undefined ? { expressionIndex: f.expressionIndex } : {}),
          validationActions: f.actions,
        });
    }
    if (audited.length > 0) a.annotate(auditKey, JSON.stringify(audited));
    if (denied) {
      const message = `ValidatingAdmissionPolicy '${denied.policy}' with binding '${denied.binding}' denied request: ${denied.message}`;
      const base = forbidden(a, message);
      throw new AdmissionError(CODES[denied.reason] ?? 422, denied.reason, base.message, {
        ...base.details,
        causes: [{ message }],
      });
    }
  }

  return {
    name: PLUGIN_NAME,
    validate,
    close() {
      for (const stop of stops) stop();
    },
  };
}
