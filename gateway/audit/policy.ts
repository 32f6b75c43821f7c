// The audit policy (`--audit-policy-file`): a `Policy` of ordered rules, read and validated as
// upstream's kube-apiserver does, and the evaluator that gives each request its level and the
// stages to leave out. The first matching rule wins; no match means level None.
import { readFileSync } from "node:fs";
import { load as loadYaml } from "js-yaml";
import type { Naming } from "../../backends/naming/index.ts";

export const LEVELS = ["None", "Metadata", "Request", "RequestResponse"] as const;
export type Level = (typeof LEVELS)[number];
export const STAGES = ["RequestReceived", "ResponseStarted", "ResponseComplete", "Panic"] as const;
export type AuditStageName = (typeof STAGES)[number];

export interface GroupResources {
  readonly group: string;
  readonly resources: readonly string[];
  readonly resourceNames: readonly string[];
}

export interface PolicyRule {
  readonly level: Level;
  readonly users: readonly string[];
  readonly userGroups: readonly string[];
  readonly verbs: readonly string[];
  readonly resources: readonly GroupResources[];
  readonly namespaces: readonly string[];
  readonly nonResourceURLs: readonly string[];
  readonly omitStages: readonly AuditStageName[];
  readonly omitManagedFields?: boolean;
}

export interface Policy {
  readonly rules: readonly PolicyRule[];
  readonly omitStages: readonly AuditStageName[];
  readonly omitManagedFields: boolean;
}

/** What the policy decides for one request. */
export interface RequestAuditConfig {
  readonly level: Level;
  readonly omitStages: ReadonlySet<AuditStageName>;
  readonly omitManagedFields: boolean;
}

/** What a rule is matched against: the authenticated user and the classified request. */
export interface PolicyAttributes {
  readonly user: { readonly username: string; readonly groups: readonly string[] } | undefined;
  readonly verb: string;
  readonly isResourceRequest: boolean;
  readonly path: string;
  readonly apiGroup: string;
  readonly resource: string;
  readonly subresource: string;
  readonly namespace: string;
  readonly name: string;
}

export class PolicyError extends Error {}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

/** A field error in upstream's field-path wording. */
function fieldError(errors: string[], path: string, message: string): void {
  errors.push(`${path}: ${message}`);
}

function stringList(errors: string[], value: unknown, path: string): string[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value) || value.some((v) => typeof v !== "string")) {
    fieldError(errors, path, "Invalid value: must be a list of strings");
    return [];
  }
  return value as string[];
}

function omitStagesOf(errors: string[], value: unknown, path: string): AuditStageName[] {
  const stages = stringList(errors, value, path);
  stages.forEach((stage, i) => {
    if (!(STAGES as readonly string[]).includes(stage))
      fieldError(
        errors,
        `${path}[${i}]`,
        `Invalid value: "${stage}": allowed stages are ${STAGES.join(",")}`,
      );
  });
  return stages as AuditStageName[];
}

const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

function ruleOf(errors: string[], raw: unknown, path: string): PolicyRule | undefined {
  if (!isObj(raw)) {
    fieldError(errors, path, "Invalid value: a rule must be an object");
    return undefined;
  }
  const level = raw.level;
  if (level === undefined || level === "") fieldError(errors, `${path}.level`, "Required value");
  else if (typeof level !== "string" || !(LEVELS as readonly string[]).includes(level))
    fieldError(
      errors,
      `${path}.level`,
      `Unsupported value: ${JSON.stringify(level)}: supported values: ${LEVELS.map((l) => `"${l}"`).join(", ")}`,
    );
  const nonResourceURLs = stringList(errors, raw.nonResourceURLs, `${path}.nonResourceURLs`);
  nonResourceURLs.forEach((url, i) => {
    if (url === "*") return;
    if (!url.startsWith("/"))
      fieldError(
        errors,
        `${path}.nonResourceURLs[${i}]`,
        `Invalid value: "${url}": non-resource URL rules must begin with a '/' character`,
      );
    if (url !== "" && url.slice(0, -1).includes("*"))
      fieldError(
        errors,
        `${path}.nonResourceURLs[${i}]`,
        `Invalid value: "${url}": non-resource URL wildcards '*' must be the final character of the rule`,
      );
  });
  const resources: GroupResources[] = [];
  if (raw.resources !== undefined && raw.resources !== null) {
    if (!Array.isArray(raw.resources))
      fieldError(errors, `${path}.resources`, "Invalid value: must be a list of group resources");
    else
      raw.resources.forEach((gr: unknown, i: number) => {
        const grPath = `${path}.resources[${i}]`;
        if (!isObj(gr)) {
          fieldError(errors, grPath, "Invalid value: must be an object");
          return;
        }
        const group = gr.group ?? "";
        if (typeof group !== "string") {
          fieldError(errors, `${path}.resources.group`, "Invalid value: must be a string");
          return;
        }
        if (group !== "" && group !== "*" && (group.length > 253 || !DNS_SUBDOMAIN.test(group)))
          fieldError(
            errors,
            `${path}.resources.group`,
            `Invalid value: "${group}": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character`,
          );
        const res = stringList(errors, gr.resources, `${grPath}.resources`);
        const names = stringList(errors, gr.resourceNames, `${grPath}.resourceNames`);
        if (names.length > 0 && res.length === 0)
          fieldError(
            errors,
            `${path}.resources.resourceNames`,
            `Invalid value: ${JSON.stringify(names)}: using resourceNames requires at least one resource`,
          );
        resources.push({ group, resources: res, resourceNames: names });
      });
  }
  const namespaces = stringList(errors, raw.namespaces, `${path}.namespaces`);
  if (nonResourceURLs.length > 0 && (resources.length > 0 || namespaces.length > 0))
    fieldError(
      errors,
      `${path}.nonResourceURLs`,
      `Invalid value: ${JSON.stringify(nonResourceURLs)}: rules cannot apply to both regular resources and non-resource URLs`,
    );
  const omitManagedFields = raw.omitManagedFields;
  if (omitManagedFields !== undefined && omitManagedFields !== null && typeof omitManagedFields !== "boolean")
    fieldError(errors, `${path}.omitManagedFields`, "Invalid value: must be a boolean");
  return {
    level: level as Level,
    users: stringList(errors, raw.users, `${path}.users`),
    userGroups: stringList(errors, raw.userGroups, `${path}.userGroups`),
    verbs: stringList(errors, raw.verbs, `${path}.verbs`),
    resources,
    namespaces,
    nonResourceURLs,
    omitStages: omitStagesOf(errors, raw.omitStages, `${path}.omitStages`),
    ...(typeof omitManagedFields === "boolean" ? { omitManagedFields } : {}),
  };
}

/** A policy document (YAML or JSON text); errors name the field, as upstream's validation does. */
export function parsePolicy(text: string, naming: Naming): Policy {
  let doc: unknown;
  try {
    doc = loadYaml(text);
  } catch (err) {
    throw new PolicyError(`failed decoding: ${(err as Error).message}`);
  }
  if (!isObj(doc)) throw new PolicyError("failed decoding: the policy is not an object");
  const apiVersion = `${naming.group("audit")}/v1`;
  if (doc.kind !== "Policy" || doc.apiVersion !== apiVersion)
    throw new PolicyError(
      `unknown group version field ${JSON.stringify(doc.apiVersion ?? "")}, kind ${JSON.stringify(doc.kind ?? "")} in policy (apiVersion: want ${apiVersion}, kind: want Policy)`,
    );
  const errors: string[] = [];
  const omitStages = omitStagesOf(errors, doc.omitStages, "omitStages");
  const rawRules = doc.rules ?? [];
  const rules: PolicyRule[] = [];
  if (!Array.isArray(rawRules)) fieldError(errors, "rules", "Invalid value: must be a list of rules");
  else
    rawRules.forEach((raw: unknown, i: number) => {
      const rule = ruleOf(errors, raw, `rules[${i}]`);
      if (rule) rules.push(rule);
    });
  if (doc.omitManagedFields !== undefined && typeof doc.omitManagedFields !== "boolean")
    fieldError(errors, "omitManagedFields", "Invalid value: must be a boolean");
  if (errors.length > 0) throw new PolicyError(errors.length === 1 ? errors[0] : `[${errors.join(", ")}]`);
  if (rules.length === 0) throw new PolicyError("loaded illegal policy with 0 rules");
  return { rules, omitStages, omitManagedFields: doc.omitManagedFields === true };
}

/** Reads `--audit-policy-file`; any failure names the file (and the field). */
export function loadPolicyFile(path: string, naming: Naming): Policy {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (err) {
    throw new PolicyError(
      `loading audit policy file: failed to read file path "${path}": ${(err as Error).message}`,
    );
  }
  try {
    return parsePolicy(text, naming);
  } catch (err) {
    if (err instanceof PolicyError)
      throw new PolicyError(`loading audit policy file: ${err.message}: from file ${path}`);
    throw err;
  }
}

function pathMatches(path: string, spec: string): boolean {
  if (spec === "*" || spec === path) return true;
  return spec.endsWith("*") && path.startsWith(spec.replace(/\*+$/, ""));
}

function matchesResource(rule: PolicyRule, a: PolicyAttributes): boolean {
  if (!a.isResourceRequest) return false;
  // Cluster-scoped resources have the empty namespace.
  if (rule.namespaces.length > 0 && !rule.namespaces.includes(a.namespace)) return false;
  if (rule.resources.length === 0) return true;
  const combined = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
  for (const gr of rule.resources) {
    if (gr.group !== a.apiGroup) continue;
    if (gr.resources.length === 0) return true;
    if (gr.resourceNames.length > 0 && !gr.resourceNames.includes(a.name)) continue;
    for (const res of gr.resources) {
      if (res === combined || res === "*") return true;
      if (a.subresource && res.startsWith("*/") && res.slice(2) === a.subresource) return true;
      if (res.endsWith("/*") && res.slice(0, -2) === a.resource) return true;
    }
  }
  return false;
}

export function ruleMatches(rule: PolicyRule, a: PolicyAttributes): boolean {
  if (rule.users.length > 0 && (!a.user || !rule.users.includes(a.user.username))) return false;
  if (rule.userGroups.length > 0 && !a.user?.groups.some((g) => rule.userGroups.includes(g))) return false;
  if (rule.verbs.length > 0 && !rule.verbs.includes(a.verb)) return false;
  if (rule.namespaces.length > 0 || rule.resources.length > 0) return matchesResource(rule, a);
  if (rule.nonResourceURLs.length > 0)
    return !a.isResourceRequest && rule.nonResourceURLs.some((spec) => pathMatches(a.path, spec));
  return true;
}

const NONE: RequestAuditConfig = { level: "None", omitStages: new Set(), omitManagedFields: false };

// What a rule decides is the same for every request it matches: made once per rule and policy.
const decisions = new WeakMap<Policy, WeakMap<PolicyRule, RequestAuditConfig>>();

function decision(policy: Policy, rule: PolicyRule): RequestAuditConfig {
  let byRule = decisions.get(policy);
  if (!byRule) {
    byRule = new WeakMap();
    decisions.set(policy, byRule);
  }
  let config = byRule.get(rule);
  if (!config) {
    config = {
      level: rule.level,
      omitStages: new Set([...policy.omitStages, ...rule.omitStages]),
      omitManagedFields: rule.omitManagedFields ?? policy.omitManagedFields,
    };
    byRule.set(rule, config);
  }
  return config;
}

/** The first matching rule's decision (shared between requests: read it, never change it). */
export function evaluatePolicy(policy: Policy, a: PolicyAttributes): RequestAuditConfig {
  for (const rule of policy.rules) if (ruleMatches(rule, a)) return decision(policy, rule);
  return NONE;
}

/** Level order: None < Metadata < Request < RequestResponse. */
export function levelAtLeast(level: Level, min: Level): boolean {
  return LEVELS.indexOf(level) >= LEVELS.indexOf(min);
}
