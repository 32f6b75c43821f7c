// Whether a webhook is called for a request (upstream's rules, namespace and object matchers):
// its rules at the request's version, or, with matchPolicy Equivalent, at another served version of
// the same resource; then its namespaceSelector and objectSelector.
import { labelSelectorFromObject } from "../../../backends/selection/index.ts";
import type { ObjectAccess } from "../../objects/index.ts";
import type { Attributes, JsonObject } from "../index.ts";
import type { Webhook, WebhookRule } from "./hooks.ts";

/** The resource version a webhook is called at. */
export interface Invocation {
  readonly hook: Webhook;
  /** The version of the resource the webhook sees (the request's, or an equivalent one). */
  readonly version: string;
}

const anyOf = (values: readonly string[], value: string) => values.includes("*") || values.includes(value);

function isNamespace(a: Attributes): boolean {
  return a.resource.group === "" && a.resource.resource === "namespaces";
}

function resourceMatches(resources: readonly string[], resource: string, subresource: string): boolean {
  for (const entry of resources) {
    const slash = entry.indexOf("/");
    const res = slash < 0 ? entry : entry.slice(0, slash);
    const sub = slash < 0 ? "" : entry.slice(slash + 1);
    if ((res === "*" || res === resource) && (sub === "*" || sub === subresource)) return true;
  }
  return false;
}

function scopeMatches(scope: string, a: Attributes): boolean {
  // A Namespace is cluster-scoped though its attributes carry its own name as namespace.
  if (scope === "Cluster") return isNamespace(a) || a.namespace === "";
  if (scope === "Namespaced") return !isNamespace(a) && a.namespace !== "";
  return true;
}

export function ruleMatches(rule: WebhookRule, a: Attributes, version: string): boolean {
  return (
    anyOf(rule.operations, a.operation) &&
    anyOf(rule.apiGroups, a.resource.group) &&
    anyOf(rule.apiVersions, version) &&
    resourceMatches(rule.resources, a.resource.resource, a.subresource) &&
    scopeMatches(rule.scope, a)
  );
}

/** The version to call the webhook at, or undefined when its rules do not match. */
export function matchingVersion(hook: Webhook, a: Attributes): string | undefined {
  if (hook.rules.some((r) => ruleMatches(r, a, a.resource.version))) return a.resource.version;
  if (hook.matchPolicy !== "Equivalent") return undefined;
  for (const version of a.versions) {
    if (version === a.resource.version) continue;
    if (hook.rules.some((r) => ruleMatches(r, a, version))) return version;
  }
  return undefined;
}

function isEmptySelector(selector: unknown): boolean {
  const s = selector as { matchLabels?: object; matchExpressions?: unknown[] } | null;
  if (!s || typeof s !== "object") return true;
  return Object.keys(s.matchLabels ?? {}).length === 0 && (s.matchExpressions ?? []).length === 0;
}

function labelsOf(object: JsonObject | undefined): Record<string, string> | undefined {
  const labels = (object?.metadata as { labels?: Record<string, string> } | undefined)?.labels;
  return labels ?? (object ? {} : undefined);
}

export function objectSelectorMatches(hook: Webhook, a: Attributes): boolean {
  if (isEmptySelector(hook.objectSelector)) return true;
  const selector = labelSelectorFromObject(hook.objectSelector);
  // Either side of the change may match; with neither object there is nothing to match.
  return [a.object, a.oldObject].some((o) => o !== undefined && selector.matches(labelsOf(o)));
}

export async function namespaceSelectorMatches(
  hook: Webhook,
  a: Attributes,
  objects: ObjectAccess,
): Promise<boolean> {
  // Cluster-scoped resources other than Namespaces are never filtered by namespace.
  if (a.namespace === "" && !isNamespace(a)) return true;
  if (isEmptySelector(hook.namespaceSelector)) return true;
  const selector = labelSelectorFromObject(hook.namespaceSelector);
  if (isNamespace(a) && a.subresource === "") {
    return selector.matches(labelsOf(a.object ?? a.oldObject));
  }
  const namespace = await objects.get({ group: "", resource: "namespaces" }, undefined, a.namespace);
  if (!namespace) return false;
  return selector.matches(labelsOf(namespace as JsonObject));
}

/** The invocation for this request, or undefined when the webhook does not apply to it. */
export async function invocationFor(
  hook: Webhook,
  a: Attributes,
  objects: ObjectAccess,
): Promise<Invocation | undefined> {
  const version = matchingVersion(hook, a);
  if (version === undefined || !objectSelectorMatches(hook, a)) return undefined;
  if (!(await namespaceSelectorMatches(hook, a, objects))) return undefined;
  return { hook, version };
}
