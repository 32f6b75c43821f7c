// Which requests a rule list and its selectors apply to, shared by admission webhooks and
// ValidatingAdmissionPolicy: upstream's rule matcher (operations, groups, versions, resources with
// `*`, `*/*`, `pods/*`, `*/status`, scope, resource names), matchPolicy Equivalent over the other
// served versions of the resource, and the namespace and object label selectors.

import { objectOrEmpty as obj, asStrings as strings } from "../../backends/common/json.ts";
import { labelSelectorFromObject } from "../../backends/selection/index.ts";
import type { ObjectAccess } from "../objects/index.ts";
import type { Attributes, JsonObject } from "./contract.ts";

export interface Rule {
  readonly operations: readonly string[];
  readonly apiGroups: readonly string[];
  readonly apiVersions: readonly string[];
  readonly resources: readonly string[];
  /** `Cluster`, `Namespaced` or `*`. */
  readonly scope: string;
  /** Only these object names when not empty (policies' NamedRuleWithOperations). */
  readonly resourceNames?: readonly string[];
}

const anyOf = (values: readonly string[], value: string) => values.includes("*") || values.includes(value);

/** A rule from its JSON form, with upstream's default scope. */
export function ruleOf(raw: unknown): Rule {
  const r = obj(raw);
  return {
    operations: strings(r.operations),
    apiGroups: strings(r.apiGroups),
    apiVersions: strings(r.apiVersions),
    resources: strings(r.resources),
    scope: typeof r.scope === "string" ? r.scope : "*",
    ...(r.resourceNames !== undefined ? { resourceNames: strings(r.resourceNames) } : {}),
  };
}

export function isNamespace(a: Pick<Attributes, "resource">): boolean {
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

export function ruleMatches(rule: Rule, a: Attributes, version: string): boolean {
  return (
    anyOf(rule.operations, a.operation) &&
    anyOf(rule.apiGroups, a.resource.group) &&
    anyOf(rule.apiVersions, version) &&
    resourceMatches(rule.resources, a.resource.resource, a.subresource) &&
    scopeMatches(rule.scope, a) &&
    (rule.resourceNames === undefined ||
      rule.resourceNames.length === 0 ||
      rule.resourceNames.includes(a.name))
  );
}

/**
 * The version the rules match the request at: the request's own, or with `Equivalent` another
 * served version of the resource; undefined when none matches.
 */
export function matchingVersion(
  rules: readonly Rule[],
  matchPolicy: string,
  a: Attributes,
): string | undefined {
  if (rules.some((r) => ruleMatches(r, a, a.resource.version))) return a.resource.version;
  if (matchPolicy !== "Equivalent") return undefined;
  for (const version of a.versions) {
    if (version === a.resource.version) continue;
    if (rules.some((r) => ruleMatches(r, a, version))) return version;
  }
  return undefined;
}

function isEmptySelector(selector: unknown): boolean {
  const s = obj(selector);
  const expressions = s.matchExpressions;
  return (
    Object.keys(obj(s.matchLabels)).length === 0 && (!Array.isArray(expressions) || expressions.length === 0)
  );
}

function labelsOf(object: JsonObject | undefined): Record<string, string> | undefined {
  const labels = (object?.metadata as { labels?: Record<string, string> } | undefined)?.labels;
  return labels ?? (object ? {} : undefined);
}

export function objectSelectorMatches(selector: unknown, a: Attributes): boolean {
  if (isEmptySelector(selector)) return true;
  const compiled = labelSelectorFromObject(selector);
  // Either side of the change may match; with neither object there is nothing to match.
  return [a.object, a.oldObject].some((o) => o !== undefined && compiled.matches(labelsOf(o)));
}

export async function namespaceSelectorMatches(
  selector: unknown,
  a: Attributes,
  objects: ObjectAccess,
): Promise<boolean> {
  // Cluster-scoped resources other than Namespaces are never filtered by namespace.
  if (a.namespace === "" && !isNamespace(a)) return true;
  if (isEmptySelector(selector)) return true;
  const compiled = labelSelectorFromObject(selector);
  if (isNamespace(a) && a.subresource === "") return compiled.matches(labelsOf(a.object ?? a.oldObject));
  const namespace = await objects.get({ group: "", resource: "namespaces" }, undefined, a.namespace);
  if (!namespace) return false;
  return compiled.matches(labelsOf(namespace as JsonObject));
}
