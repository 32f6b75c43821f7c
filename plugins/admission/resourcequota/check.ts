// One write against the namespace's quotas (upstream's CheckRequest): which quotas it falls under,
// what it adds to their usage, and the refusals when a quota would be exceeded or cannot judge.
import type { AdmissionError, Attributes, JsonObject } from "../index.ts";
import {
  addLists,
  lessThanOrEqual,
  mask,
  negativeResources,
  prettyNames,
  prettyPrint,
  removeZeros,
  subtractLists,
  subtractNonNegative,
} from "../resourcelist/lists.ts";
import { type ResourceList, resourceList, sign } from "../resourcelist/quantity.ts";
import type { LimitedResource } from "./config.ts";
import type { Evaluator, ScopeSelector } from "./evaluators.ts";
import { asArray, asObject } from "./pods.ts";

/** A quota as admission judges it: the hard limits and usage its status records. */
export interface QuotaState {
  readonly name: string;
  readonly hard: ResourceList;
  readonly used: ResourceList;
  readonly selectors: readonly ScopeSelector[];
}

/** The quota's scopes and scope selector expressions as one list. */
export function quotaSelectors(quota: JsonObject): ScopeSelector[] {
  const spec = asObject(quota.spec) ?? {};
  const out: ScopeSelector[] = [];
  for (const s of asArray(spec.scopes)) {
    if (typeof s === "string") out.push({ scopeName: s, operator: "Exists", values: [] });
  }
  for (const e of asArray(asObject(spec.scopeSelector)?.matchExpressions)) {
    const expr = asObject(e);
    if (!expr || typeof expr.scopeName !== "string" || typeof expr.operator !== "string") continue;
    const values = asArray(expr.values).filter((v): v is string => typeof v === "string");
    out.push({ scopeName: expr.scopeName, operator: expr.operator, values });
  }
  return out;
}

export function quotaName(quota: JsonObject): string {
  const name = asObject(quota.metadata)?.name;
  return typeof name === "string" ? name : "";
}

/** The quota's status as a QuotaState; throws QuantityError for a value that is not a quantity. */
export function quotaState(quota: JsonObject): QuotaState {
  const status = asObject(quota.status) ?? {};
  return {
    name: quotaName(quota),
    hard: resourceList(status.hard, "status.hard"),
    used: resourceList(status.used, "status.used"),
    selectors: quotaSelectors(quota),
  };
}

export type Refuse = (why: string) => AdmissionError;

/** Whether the quota applies: it tracks something the evaluator charges and all its scopes match. */
export function quotaMatches(evaluator: Evaluator, quota: QuotaState, object: JsonObject): boolean {
  if (evaluator.matchingResources([...quota.hard.keys()]).length === 0) return false;
  return quota.selectors.every((s) => evaluator.matchesScope?.(s, object) ?? false);
}

function matchingScopes(evaluator: Evaluator, object: JsonObject, selectors: readonly ScopeSelector[]) {
  const match = evaluator.matchesScope;
  return match ? selectors.filter((s) => match(s, object)) : [];
}

/**
 * The quota's usage after adding `delta` (restricted to what it tracks); refuses with upstream's
 * `exceeded quota` text when that goes over a hard limit.
 */
export function charge(quota: QuotaState, delta: ResourceList, refuse: Refuse): ResourceList {
  const requested = mask(delta, quota.hard.keys());
  const newUsage = addLists(quota.used, requested);
  const [allowed, exceeded] = lessThanOrEqual(mask(newUsage, requested.keys()), quota.hard);
  if (!allowed) {
    throw refuse(
      `exceeded quota: ${quota.name}, requested: ${prettyPrint(mask(requested, exceeded))}, used: ${prettyPrint(
        mask(quota.used, exceeded),
      )}, limited: ${prettyPrint(mask(quota.hard, exceeded))}`,
    );
  }
  return newUsage;
}

export interface CheckResult {
  /** What the write adds to usage (zeros removed); empty when it changes nothing. */
  readonly delta: ResourceList;
  /** The quotas the write is charged to, with their usage after the charge. */
  readonly charged: readonly { readonly name: string; readonly used: ResourceList }[];
}

const NOTHING: CheckResult = { delta: new Map(), charged: [] };

function goScopes(scopes: readonly ScopeSelector[]): string {
  return `[${scopes.map((s) => `{${s.scopeName} ${s.operator} [${s.values.join(" ")}]}`).join(" ")}]`;
}

/** Judges one write against the quotas; throws the refusal, or returns what to charge where. */
export function checkRequest(
  quotas: readonly QuotaState[],
  a: Attributes,
  evaluator: Evaluator,
  limited: readonly LimitedResource[],
  now: number,
  refuse: Refuse,
  internal: (why: string) => AdmissionError,
): CheckResult {
  const object = a.object;
  if (!object) return NOTHING;

  const limitedScopes = limited.flatMap((l) => matchingScopes(evaluator, object, l.matchScopes));
  const limitedNames = new Set<string>();
  const forResource = limited.filter(
    (l) => l.apiGroup === a.resource.group && l.resource === a.resource.resource,
  );
  if (forResource.length > 0) {
    const usage = evaluator.usage(object, now);
    for (const l of forResource) {
      for (const [name, value] of usage) {
        if (sign(value) === 1 && l.matchContains.some((c) => name.includes(c))) limitedNames.add(name);
      }
    }
  }

  const interesting: QuotaState[] = [];
  const restricted = new Set<string>();
  const restrictedScopes: ScopeSelector[] = [];
  for (const quota of quotas) {
    restrictedScopes.push(...matchingScopes(evaluator, object, quota.selectors));
    if (!quotaMatches(evaluator, quota, object)) continue;
    const tracked = evaluator.matchingResources([...quota.hard.keys()]);
    const failed = evaluator.constraints(tracked, object);
    if (failed !== undefined) throw refuse(`failed quota: ${quota.name}: ${failed}`);
    if (tracked.some((r) => quota.hard.has(r) && !quota.used.has(r))) {
      throw refuse(`status unknown for quota: ${quota.name}, resources: ${prettyNames(tracked)}`);
    }
    interesting.push(quota);
    for (const r of tracked) restricted.add(r);
  }

  let delta = evaluator.usage(object, now);
  const negative = negativeResources(delta);
  if (negative.length > 0) throw refuse(`quota usage is negative for resource(s): ${prettyNames(negative)}`);

  if (a.operation === "UPDATE") {
    const previous = a.oldObject;
    if (!previous) throw refuse("unable to get previous usage since prior version of object was not found");
    const rv = asObject(previous.metadata)?.resourceVersion;
    if (typeof rv === "string" && rv !== "") {
      const before = evaluator.usage(previous, now);
      delta = evaluator.signedUpdates ? subtractLists(delta, before) : subtractNonNegative(delta, before);
    }
  }
  delta = removeZeros(delta);
  if (delta.size === 0) return NOTHING;

  const uncovered = [...limitedNames].filter((n) => !restricted.has(n)).sort();
  if (uncovered.length > 0) throw refuse(`insufficient quota to consume: ${uncovered.join(",")}`);
  const uncoveredScopes = limitedScopes.filter(
    (l) => !restrictedScopes.some((r) => r.scopeName === l.scopeName),
  );
  if (uncoveredScopes.length > 0) {
    throw internal(`insufficient quota to match these scopes: ${goScopes(uncoveredScopes)}`);
  }

  return { delta, charged: interesting.map((q) => ({ name: q.name, used: charge(q, delta, refuse) })) };
}
