// ValidatingAdmissionPolicy: every binding whose policy and match criteria take in the request has
// the policy's CEL validations evaluated against it (with the binding's parameter object), and
// each failure denied, warned about or audited as the binding's validationActions say.

import {
  COST_LIMIT_EXCEEDED_MESSAGE,
  MAX_EVALUATED_MESSAGE_EXPRESSION_SIZE_BYTES,
  PER_CALL_LIMIT,
  RUNTIME_CEL_COST_BUDGET,
} from "../../../backends/cel/index.ts";
import { objectOrEmpty as obj } from "../../../backends/common/json.ts";
import { AdmissionEvaluator, AuthorizationSession, requestValue } from "../cel/index.ts";
import {
  AdmissionError,
  type AdmissionPlugin,
  type Attributes,
  forbidden,
  type JsonObject,
  objectAtVersion,
  type PluginEnv,
} from "../index.ts";
import { matchingVersion, namespaceSelectorMatches, objectSelectorMatches } from "../matching.ts";
import {
  type Binding,
  bindingOf,
  type Compiled,
  type MatchResources,
  type Policy,
  policyOf,
} from "./policies.ts";
import { typeCheck } from "./typecheck.ts";

const POLICY_RESOURCES = new Set(["validatingadmissionpolicies", "validatingadmissionpolicybindings"]);

export const PLUGIN_NAME = "ValidatingAdmissionPolicy";

const CODES: Readonly<Record<string, number>> = {
  Unauthorized: 401,
  Forbidden: 403,
  RequestEntityTooLarge: 413,
  Invalid: 422,
};

/** A denial, warning or audit record one policy produced for a request. */
interface Failure {
  readonly policy: string;
  /** Undefined for a policy-level configuration error (upstream names no binding then). */
  readonly binding?: string;
  readonly message: string;
  readonly reason: string;
  readonly expressionIndex: number;
  /** The binding's validationActions; configuration and audit-annotation errors always deny. */
  readonly actions: readonly string[];
}

/** Upstream cuts audit annotation values at 10 KiB. */
const MAX_AUDIT_ANNOTATION_VALUE_LENGTH = 10 * 1024;
/** Budget shared by one binding's matchConditions (celconfig.RuntimeCELCostBudgetMatchConditions). */
const MATCH_CONDITIONS_COST_BUDGET = 2_500_000;
const OUT_OF_BUDGET =
  "validation failed due to running out of cost budget, no further validation rules will be run";
const ALWAYS_DENY: readonly string[] = ["Deny"];

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

class ConfigurationError extends Error {}

/** CEL's name of a result's type, for upstream's unsupported-return-type text. */
function resultTypeName(v: unknown): string {
  if (typeof v === "bigint") return "int";
  if (typeof v === "number") return "double";
  if (typeof v === "boolean") return "bool";
  if (v instanceof Uint8Array) return "bytes";
  if (v instanceof Date) return "google.protobuf.Timestamp";
  if (Array.isArray(v)) return "list";
  if (v instanceof Map || (typeof v === "object" && v !== null)) return "map";
  return typeof v;
}

const byName = (x: string, y: string): number => (x < y ? -1 : x > y ? 1 : 0);

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
                // expressionWarnings is omitted when empty, as upstream's omitempty does.
                typeChecking: warnings.length > 0 ? { expressionWarnings: warnings } : {},
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

  /** The binding's parameter object, null without paramKind or paramRef (as 1.27). */
  async function paramsFor(policy: Policy, binding: Binding): Promise<unknown> {
    if (!policy.paramKind || !binding.paramRef) return null;
    const info = paramResource(policy);
    if (!info) throw new ConfigurationError(policyConfigurationError(policy));
    const ref = binding.paramRef;
    // Upstream looks the name up cluster-wide when paramRef names no namespace.
    const param = await env.objects.get(
      { group: info.group, resource: info.resource },
      ref.namespace === "" ? undefined : ref.namespace,
      ref.name,
    );
    if (!param) throw new ConfigurationError(`failed to configure binding: ${ref.name} not found`);
    return param;
  }

  function paramResource(policy: Policy) {
    if (!policy.paramKind) return undefined;
    const { apiVersion, kind } = policy.paramKind;
    const slash = apiVersion.indexOf("/");
    return env.resources.byKind(
      slash < 0 ? "" : apiVersion.slice(0, slash),
      apiVersion.slice(slash + 1),
      kind,
    );
  }

  function policyConfigurationError(policy: Policy): string {
    const { apiVersion, kind } = policy.paramKind ?? { apiVersion: "", kind: "" };
    const slash = apiVersion.indexOf("/");
    const gv = slash < 0 ? `/${apiVersion}` : apiVersion;
    return `failed to configure policy: failed to find resource referenced by paramKind: '${gv}, Kind=${kind}'`;
  }

  interface Outcome {
    readonly ok: boolean;
    readonly value?: unknown;
    readonly message?: string;
    readonly outOfBudget?: boolean;
  }

  /** Runs one program under the rest of a shared budget, each call capped at the per-call limit. */
  async function runner(evaluator: AdmissionEvaluator, total: number) {
    let budget = total;
    return async (c: Compiled): Promise<Outcome> => {
      if (!c.program) return { ok: false, message: `compilation error: ${c.error ?? "invalid expression"}` };
      const limit = Math.min(PER_CALL_LIMIT, budget);
      const result = await evaluator.evaluate(c.program, limit);
      if (!result.ok && result.error.message === COST_LIMIT_EXCEEDED_MESSAGE && limit < PER_CALL_LIMIT)
        return { ok: false, outOfBudget: true, message: OUT_OF_BUDGET };
      budget -= result.cost;
      if (result.ok) return { ok: true, value: result.value };
      return {
        ok: false,
        message: `expression '${c.expression}' resulted in error: ${result.error.message}`,
      };
    };
  }

  /** What one policy through one binding says about a request. */
  async function evaluate(
    policy: Policy,
    binding: Binding,
    version: string,
    a: Attributes,
    session: AuthorizationSession,
    annotations: Map<string, string[]>,
  ): Promise<Failure[]> {
    const fail = (
      message: string,
      reason: string,
      expressionIndex: number,
      actions = binding.validationActions,
    ) => ({
      policy: policy.name,
      binding: binding.name,
      message,
      reason,
      expressionIndex,
      actions,
    });
    const failing = policy.failurePolicy === "Fail";
    let params: unknown;
    let object: JsonObject | null;
    let oldObject: JsonObject | null;
    try {
      params = await paramsFor(policy, binding);
      try {
        object = objectAtVersion(a, a.object, version);
        oldObject = objectAtVersion(a, a.oldObject, version);
      } catch (err) {
        const why = err instanceof Error ? err.message : String(err);
        throw new ConfigurationError(`failed to configure binding: failed to convert object version: ${why}`);
      }
    } catch (err) {
      if (!(err instanceof ConfigurationError)) throw err;
      return failing ? [fail(err.message, "Invalid", 0, ALWAYS_DENY)] : [];
    }
    const evaluator = new AdmissionEvaluator(
      a,
      { object, oldObject, request: requestValue(a), params },
      session,
    );

    // matchConditions: any false skips the binding; errors (with none false) follow failurePolicy.
    if (policy.matchConditions.length > 0) {
      const run = await runner(evaluator, MATCH_CONDITIONS_COST_BUDGET);
      const errors: string[] = [];
      for (const c of policy.matchConditions) {
        const outcome = await run(c);
        if (outcome.outOfBudget) {
          errors.splice(0, errors.length, OUT_OF_BUDGET);
          break;
        }
        if (!outcome.ok) errors.push(outcome.message ?? "");
        else if (outcome.value === false) return [];
      }
      if (errors.length > 0) {
        if (!failing) return [];
        return [fail(errors.length === 1 ? (errors[0] ?? "") : `[${errors.join(", ")}]`, "", 0)];
      }
    }

    const failures: Failure[] = [];
    const run = await runner(evaluator, RUNTIME_CEL_COST_BUDGET);
    const outcomes: Outcome[] = [];
    for (const v of policy.validations) {
      const outcome = await run(v.rule);
      if (outcome.outOfBudget) return failing ? [fail(OUT_OF_BUDGET, "", 0)] : [];
      outcomes.push(outcome);
    }
    // Every messageExpression runs after the validations, on what is left of their budget.
    const messages: (Outcome | undefined)[] = [];
    let messageBudgetError: string | undefined;
    for (const v of policy.validations) {
      if (!v.messageExpression) {
        messages.push(undefined);
        continue;
      }
      const outcome = await run(v.messageExpression);
      if (outcome.outOfBudget) {
        messageBudgetError = `failed messageExpression: ${OUT_OF_BUDGET}`;
        break;
      }
      messages.push(outcome);
    }
    for (const [i, v] of policy.validations.entries()) {
      const outcome = outcomes[i] ?? { ok: false, message: "" };
      if (!outcome.ok) {
        if (failing) failures.push(fail(outcome.message ?? "", "", i));
        continue;
      }
      if (messageBudgetError !== undefined) {
        if (failing) failures.push(fail(messageBudgetError, "", i));
        continue;
      }
      if (outcome.value === true) continue;
      let message = "";
      const m = messages[i];
      if (m?.ok && typeof m.value === "string") {
        message = m.value.trim();
        if (
          Buffer.byteLength(message) > MAX_EVALUATED_MESSAGE_EXPRESSION_SIZE_BYTES ||
          message.includes("\n")
        )
          message = "";
      }
      if (message === "") message = v.message.trim();
      if (message === "") message = `failed expression: ${v.rule.expression.trim()}`;
      failures.push(fail(message, v.reason || "Invalid", i));
    }

    // Audit annotations run on a budget of their own; their errors deny whatever the actions say.
    const runAnnotation = await runner(evaluator, RUNTIME_CEL_COST_BUDGET);
    for (const annotation of policy.auditAnnotations) {
      const outcome = await runAnnotation(annotation.value);
      if (outcome.outOfBudget) {
        if (failing) failures.push(fail(OUT_OF_BUDGET, "", 0, ALWAYS_DENY));
        break;
      }
      if (!outcome.ok) {
        if (failing) failures.push(fail(outcome.message ?? "", "", 0, ALWAYS_DENY));
        continue;
      }
      if (outcome.value === null) continue;
      if (typeof outcome.value !== "string") {
        failures.push(
          fail(
            `valueExpression '${annotation.value.expression}' resulted in unsupported return type: ${resultTypeName(outcome.value)}. Return type must be either string or null.`,
            "",
            0,
            ALWAYS_DENY,
          ),
        );
        continue;
      }
      const value = outcome.value.trim().slice(0, MAX_AUDIT_ANNOTATION_VALUE_LENGTH);
      if (value === "") continue;
      const values = annotations.get(annotation.key) ?? [];
      if (!values.includes(value)) values.push(value);
      annotations.set(annotation.key, values);
    }
    return failures;
  }

  async function validate(a: Attributes): Promise<void> {
    if (!policyInformer || !bindingInformer) return;
    // Policies never judge policies and bindings (no lock-out); webhook configurations they may.
    if (a.resource.group === group && POLICY_RESOURCES.has(a.resource.resource)) return;
    await Promise.all([policyInformer.synced, bindingInformer.synced]);
    const byPolicy = new Map<string, Binding[]>();
    for (const raw of bindingInformer.list()) {
      const b = bindingOf(raw as JsonObject);
      byPolicy.set(b.policyName, [...(byPolicy.get(b.policyName) ?? []), b]);
    }
    const policies = policyInformer
      .list()
      .map((p) => policyOf(p as JsonObject))
      .sort((x, y) => byName(x.name, y.name));
    let session: AuthorizationSession | undefined;
    const failures: Failure[] = [];
    for (const policy of policies) {
      const version = await matches(policy.matchConstraints, a, env);
      if (version === undefined) continue;
      // A paramKind naming no known kind fails the policy itself, bindings or not (as 1.27).
      if (policy.paramKind && !paramResource(policy)) {
        if (policy.failurePolicy === "Fail")
          failures.push({
            policy: policy.name,
            message: policyConfigurationError(policy),
            reason: "",
            expressionIndex: 0,
            actions: ALWAYS_DENY,
          });
        continue;
      }
      const annotations = new Map<string, string[]>();
      for (const binding of (byPolicy.get(policy.name) ?? []).sort((x, y) => byName(x.name, y.name))) {
        if (binding.matchResources && (await matches(binding.matchResources, a, env)) === undefined) continue;
        session ??= new AuthorizationSession(env.authorizer);
        failures.push(...(await evaluate(policy, binding, version, a, session, annotations)));
      }
      for (const [key, values] of annotations) a.annotate(`${policy.name}/${key}`, values.join(", "));
    }
    let denied: Failure | undefined;
    let audited = false;
    for (const f of failures) {
      if (f.actions.includes("Deny")) denied ??= f;
      if (f.binding === undefined || f.actions === ALWAYS_DENY) continue;
      if (f.actions.includes("Warn"))
        a.warn(
          `Validation failed for ValidatingAdmissionPolicy '${f.policy}' with binding '${f.binding}': ${f.message}`,
        );
      // Upstream adds one single-entry list per failure and keeps the first under the key.
      if (f.actions.includes("Audit") && !audited) {
        audited = true;
        a.annotate(
          auditKey,
          JSON.stringify([
            {
              message: f.message,
              policy: f.policy,
              binding: f.binding,
              expressionIndex: f.expressionIndex,
              validationActions: f.actions,
            },
          ]),
        );
      }
    }
    if (denied) {
      const message =
        denied.binding === undefined
          ? `ValidatingAdmissionPolicy '${denied.policy}' denied request: ${denied.message}`
          : `ValidatingAdmissionPolicy '${denied.policy}' with binding '${denied.binding}' denied request: ${denied.message}`;
      const reason = denied.reason || "Invalid";
      const base = forbidden(a, message);
      throw new AdmissionError(CODES[reason] ?? 422, reason, base.message, {
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
