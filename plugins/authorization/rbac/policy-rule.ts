// RBAC policy rules: reading them from API objects, matching a request against one, whether one
// set of rules covers another (escalation prevention), and upstream's compact text of a rule.
import type { Attributes } from "../authorizer.ts";

export interface PolicyRule {
  readonly verbs: readonly string[];
  readonly apiGroups: readonly string[];
  readonly resources: readonly string[];
  readonly resourceNames: readonly string[];
  readonly nonResourceURLs: readonly string[];
}

const ALL = "*";

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
}

/** A rule from its JSON form; fields of the wrong type count as empty. */
export function toPolicyRule(value: unknown): PolicyRule {
  const o = typeof value === "object" && value !== null ? (value as Record<string, unknown>) : {};
  return {
    verbs: strings(o.verbs),
    apiGroups: strings(o.apiGroups),
    resources: strings(o.resources),
    resourceNames: strings(o.resourceNames),
    nonResourceURLs: strings(o.nonResourceURLs),
  };
}

/** The `rules` of a Role or ClusterRole object. */
export function rulesOf(object: Record<string, unknown>): PolicyRule[] {
  return Array.isArray(object.rules) ? object.rules.map(toPolicyRule) : [];
}

/** The JSON form of a rule as upstream writes it: verbs always, the other lists when not empty. */
export function ruleToJson(rule: PolicyRule): Record<string, string[]> {
  const out: Record<string, string[]> = { verbs: [...rule.verbs] };
  if (rule.apiGroups.length > 0) out.apiGroups = [...rule.apiGroups];
  if (rule.resources.length > 0) out.resources = [...rule.resources];
  if (rule.resourceNames.length > 0) out.resourceNames = [...rule.resourceNames];
  if (rule.nonResourceURLs.length > 0) out.nonResourceURLs = [...rule.nonResourceURLs];
  return out;
}

export function policyRule(partial: Partial<PolicyRule>): PolicyRule {
  return {
    verbs: partial.verbs ?? [],
    apiGroups: partial.apiGroups ?? [],
    resources: partial.resources ?? [],
    resourceNames: partial.resourceNames ?? [],
    nonResourceURLs: partial.nonResourceURLs ?? [],
  };
}

// --- matching one request ---

function verbMatches(rule: PolicyRule, verb: string): boolean {
  for (const v of rule.verbs) if (v === ALL || v === verb) return true;
  return false;
}

function groupMatches(rule: PolicyRule, group: string): boolean {
  for (const g of rule.apiGroups) if (g === ALL || g === group) return true;
  return false;
}

// `resource` is `plural` or `plural/subresource`; a rule's `*` matches any, and a rule's
// star-slash-subresource matches that subresource of any resource, as upstream.
function resourceMatches(rule: PolicyRule, resource: string, subresource: string): boolean {
  for (const r of rule.resources) {
    if (r === ALL || r === resource) return true;
    if (
      subresource !== "" &&
      r.length === subresource.length + 2 &&
      r.startsWith("*/") &&
      r.endsWith(subresource)
    ) {
      return true;
    }
  }
  return false;
}

/** With resourceNames, only a request naming one of them matches (so never create or list). */
function nameMatches(rule: PolicyRule, name: string): boolean {
  if (rule.resourceNames.length === 0) return true;
  return rule.resourceNames.includes(name);
}

function urlMatches(rule: PolicyRule, path: string): boolean {
  for (const u of rule.nonResourceURLs) {
    if (u === ALL || u === path) return true;
    if (u.endsWith("*") && path.startsWith(trimStars(u))) return true;
  }
  return false;
}

function trimStars(s: string): string {
  let end = s.length;
  while (end > 0 && s[end - 1] === "*") end--;
  return s.slice(0, end);
}

export function ruleAllows(attributes: Attributes, rule: PolicyRule): boolean {
  if (!verbMatches(rule, attributes.verb)) return false;
  if (!attributes.isResourceRequest) return urlMatches(rule, attributes.path);
  const resource =
    attributes.subresource === "" ? attributes.resource : `${attributes.resource}/${attributes.subresource}`;
  return (
    groupMatches(rule, attributes.apiGroup) &&
    resourceMatches(rule, resource, attributes.subresource) &&
    nameMatches(rule, attributes.name)
  );
}

// --- coverage: does one set of rules grant at least what another grants ---

/** Splits a rule into rules of one group, resource, verb and name (or one URL and verb). */
export function breakdownRule(rule: PolicyRule): PolicyRule[] {
  const out: PolicyRule[] = [];
  for (const group of rule.apiGroups) {
    for (const resource of rule.resources) {
      for (const verb of rule.verbs) {
        if (rule.resourceNames.length > 0) {
          for (const name of rule.resourceNames) {
            out.push(
              policyRule({ apiGroups: [group], resources: [resource], verbs: [verb], resourceNames: [name] }),
            );
          }
        } else {
          out.push(policyRule({ apiGroups: [group], resources: [resource], verbs: [verb] }));
        }
      }
    }
  }
  for (const url of rule.nonResourceURLs) {
    for (const verb of rule.verbs) out.push(policyRule({ nonResourceURLs: [url], verbs: [verb] }));
  }
  return out;
}

function hasAll(set: readonly string[], wanted: readonly string[]): boolean {
  for (const w of wanted) if (!set.includes(w)) return false;
  return true;
}

function resourcesCover(owner: readonly string[], wanted: readonly string[]): boolean {
  if (owner.includes(ALL) || hasAll(owner, wanted)) return true;
  for (const path of wanted) {
    if (owner.includes(path)) continue;
    const slash = path.indexOf("/");
    if (slash < 0) return false;
    if (!owner.includes(`*/${path.slice(slash + 1)}`)) return false;
  }
  return true;
}

function urlsCover(owner: readonly string[], wanted: readonly string[]): boolean {
  for (const path of wanted) {
    let covered = false;
    for (const o of owner) {
      if (o === path || (o.endsWith("*") && path.startsWith(trimStars(o)))) {
        covered = true;
        break;
      }
    }
    if (!covered) return false;
  }
  return true;
}

/** Whether `owner` grants everything the single-item rule `sub` grants. */
function ruleCovers(owner: PolicyRule, sub: PolicyRule): boolean {
  const verbs = owner.verbs.includes(ALL) || hasAll(owner.verbs, sub.verbs);
  const groups = owner.apiGroups.includes(ALL) || hasAll(owner.apiGroups, sub.apiGroups);
  const names =
    sub.resourceNames.length === 0
      ? owner.resourceNames.length === 0
      : owner.resourceNames.length === 0 || hasAll(owner.resourceNames, sub.resourceNames);
  return (
    verbs &&
    groups &&
    resourcesCover(owner.resources, sub.resources) &&
    names &&
    urlsCover(owner.nonResourceURLs, sub.nonResourceURLs)
  );
}

/** Whether `owner` covers every rule of `servant`; the uncovered single-item rules otherwise. */
export function covers(
  owner: readonly PolicyRule[],
  servant: readonly PolicyRule[],
): { covered: boolean; missing: PolicyRule[] } {
  const missing: PolicyRule[] = [];
  for (const rule of servant) {
    for (const sub of breakdownRule(rule)) {
      if (!owner.some((o) => ruleCovers(o, sub))) missing.push(sub);
    }
  }
  return { covered: missing.length === 0, missing };
}

/** Merges rules of one group and one resource (and nothing else) that differ only by verb. */
export function compactRules(rules: readonly PolicyRule[]): PolicyRule[] {
  const out: PolicyRule[] = [];
  const simple = new Map<string, { apiGroups: string[]; resources: string[]; verbs: string[] }>();
  for (const r of rules) {
    const isSimple =
      r.resourceNames.length === 0 &&
      r.nonResourceURLs.length === 0 &&
      r.apiGroups.length === 1 &&
      r.resources.length === 1;
    if (!isSimple) {
      out.push(r);
      continue;
    }
    const key = `${r.apiGroups[0]}\u0000${r.resources[0]}`;
    const existing = simple.get(key);
    if (existing) existing.verbs.push(...r.verbs);
    else simple.set(key, { apiGroups: [...r.apiGroups], resources: [...r.resources], verbs: [...r.verbs] });
  }
  for (const s of simple.values()) out.push(policyRule(s));
  return out;
}

/** Go's `%q` of a string list: `["a" "b"]`. */
export function goQuotedList(values: readonly string[]): string {
  return `[${values.map((v) => JSON.stringify(v)).join(" ")}]`;
}

/** Upstream's compact text of a rule: `{APIGroups:[""], Resources:["pods"], Verbs:["get"]}`. */
export function compactString(rule: PolicyRule): string {
  const parts: string[] = [];
  if (rule.apiGroups.length > 0) parts.push(`APIGroups:${goQuotedList(rule.apiGroups)}`);
  if (rule.resources.length > 0) parts.push(`Resources:${goQuotedList(rule.resources)}`);
  if (rule.nonResourceURLs.length > 0) parts.push(`NonResourceURLs:${goQuotedList(rule.nonResourceURLs)}`);
  if (rule.resourceNames.length > 0) parts.push(`ResourceNames:${goQuotedList(rule.resourceNames)}`);
  if (rule.verbs.length > 0) parts.push(`Verbs:${goQuotedList(rule.verbs)}`);
  return `{${parts.join(", ")}}`;
}

/** Whether two rules are the same (same lists in the same order). */
export function sameRule(a: PolicyRule, b: PolicyRule): boolean {
  const eq = (x: readonly string[], y: readonly string[]) =>
    x.length === y.length && x.every((v, i) => v === y[i]);
  return (
    eq(a.verbs, b.verbs) &&
    eq(a.apiGroups, b.apiGroups) &&
    eq(a.resources, b.resources) &&
    eq(a.resourceNames, b.resourceNames) &&
    eq(a.nonResourceURLs, b.nonResourceURLs)
  );
}
