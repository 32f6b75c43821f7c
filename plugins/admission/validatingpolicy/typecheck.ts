// Type-checking a policy against the kinds it matches, as upstream's type-checking controller
// does: each expression compiled with `object`/`oldObject` typed by the kind's schema (and
// `params` by the parameter kind's), the problems written as warnings into the policy's status.
// 1.27 checks the validations' expressions only (not messageExpressions).

import { compile } from "../../../backends/cel/index.ts";
import {
  asArray as list,
  objectOrEmpty as obj,
  asStrings as strings,
} from "../../../backends/common/json.ts";
import { admissionEnvironment } from "../cel/index.ts";
import type { JsonObject, ResourceCatalog, ResourceInfo } from "../index.ts";

/** Upstream checks a handful of kinds at most. */
const MAX_KINDS = 10;

export interface ExpressionWarning {
  readonly fieldRef: string;
  readonly warning: string;
}

/**
 * The kinds the policy's rules name, sorted by group, version and kind: a rule with a wildcard group
 * or version is skipped, wildcard and subresource names are; one rule's tenth kind ends the search.
 */
function matchedKinds(spec: JsonObject, resources: ResourceCatalog): ResourceInfo[] {
  const out: ResourceInfo[] = [];
  const add = (info: ResourceInfo) => {
    if (!out.some((o) => o.group === info.group && o.version === info.version && o.kind === info.kind))
      out.push(info);
  };
  search: for (const raw of list(obj(spec.matchConstraints).resourceRules)) {
    const r = obj(raw);
    const groups = strings(r.apiGroups).sort();
    const versions = strings(r.apiVersions).sort();
    const names = strings(r.resources)
      .filter((n) => !n.includes("*") && !n.includes("/"))
      .sort();
    if ([...groups, ...versions].some((x) => x.includes("*"))) continue;
    let count = 0;
    for (const g of groups)
      for (const v of versions)
        for (const n of names) {
          const info = resources.byResource(g, v, n);
          if (!info) continue;
          add(info);
          if (++count === MAX_KINDS) break search;
        }
  }
  const cmp = (x: string, y: string) => (x < y ? -1 : x > y ? 1 : 0);
  return out
    .filter((k) => k.schema !== undefined)
    .sort((x, y) => cmp(x.group, y.group) || cmp(x.version, y.version) || cmp(x.kind, y.kind));
}

function gvkString(info: ResourceInfo): string {
  return `${info.group}/${info.version}, Kind=${info.kind}`;
}

export function typeCheck(policy: JsonObject, resources: ResourceCatalog): ExpressionWarning[] {
  const spec = obj(policy.spec);
  const kinds = matchedKinds(spec, resources);
  if (kinds.length === 0) return [];
  const paramKind = spec.paramKind === undefined ? undefined : obj(spec.paramKind);
  let paramsSchema: unknown;
  if (paramKind) {
    const apiVersion = typeof paramKind.apiVersion === "string" ? paramKind.apiVersion : "";
    const slash = apiVersion.indexOf("/");
    const group = slash < 0 ? "" : apiVersion.slice(0, slash);
    const version = apiVersion.slice(slash + 1);
    paramsSchema = resources.byKind(group, version, String(paramKind.kind ?? ""))?.schema;
  }
  const environments = kinds.map((k) => ({ kind: k, env: admissionEnvironment(k.schema, paramsSchema) }));
  const warnings: ExpressionWarning[] = [];
  const check = (expression: string, resultType: "bool" | "string", fieldRef: string) => {
    const problems: string[] = [];
    for (const { kind, env } of environments) {
      const result = compile(expression, env, { resultType });
      if (!result.ok) problems.push(`${gvkString(kind)}: ${result.error.message}`);
    }
    if (problems.length > 0) warnings.push({ fieldRef, warning: problems.join("\n") });
  };
  list(spec.validations).forEach((raw, i) => {
    const v = obj(raw);
    if (typeof v.expression === "string") check(v.expression, "bool", `spec.validations[${i}].expression`);
  });
  return warnings;
}
