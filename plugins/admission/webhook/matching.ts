// Whether a webhook is called for a request: its rules (at the request's version or, with
// matchPolicy Equivalent, another served one), then its namespace and object selectors.
import type { ObjectAccess } from "../../objects/index.ts";
import type { Attributes } from "../index.ts";
import { matchingVersion, namespaceSelectorMatches, objectSelectorMatches } from "../matching.ts";
import type { ConditionOutcome } from "./conditions.ts";
import type { Webhook } from "./hooks.ts";

/** The resource version a webhook is called at. */
export interface Invocation {
  readonly hook: Webhook;
  /** The version of the resource the webhook sees (the request's, or an equivalent one). */
  readonly version: string;
  /** Set when a matchCondition could not be evaluated: the webhook is not called. */
  readonly conditionError?: string;
}

/** Where matchConditions are evaluated; absent when the AdmissionWebhookMatchConditions gate is off. */
export type ConditionCheck = (hook: Webhook, a: Attributes, version: string) => Promise<ConditionOutcome>;

/**
 * The invocation for this request, or undefined when the webhook does not apply to it; a
 * condition that cannot be evaluated is reported as `conditionError` for failurePolicy to settle.
 */
export async function invocationFor(
  hook: Webhook,
  a: Attributes,
  objects: ObjectAccess,
  conditions?: ConditionCheck,
): Promise<Invocation | undefined> {
  const version = matchingVersion(hook.rules, hook.matchPolicy, a);
  if (version === undefined || !objectSelectorMatches(hook.objectSelector, a)) return undefined;
  if (!(await namespaceSelectorMatches(hook.namespaceSelector, a, objects))) return undefined;
  if (conditions && hook.matchConditions.length > 0) {
    const outcome = await conditions(hook, a, version);
    if ("error" in outcome) return { hook, version, conditionError: outcome.error };
    if (!outcome.matched) return undefined;
  }
  return { hook, version };
}
