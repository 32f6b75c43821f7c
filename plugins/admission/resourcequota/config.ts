// The plugin's configuration (upstream's ResourceQuotaConfiguration): resources that may only be
// consumed when a quota covers them, by resource name substring or by pod scope.
import type { Naming } from "../../../backends/naming/index.ts";
import type { ScopeSelector } from "./evaluators.ts";

export interface LimitedResource {
  readonly apiGroup: string;
  readonly resource: string;
  /** Usage names containing any of these need a covering quota. */
  readonly matchContains: readonly string[];
  /** Objects matching any of these scopes need a quota with that scope. */
  readonly matchScopes: readonly ScopeSelector[];
}

export interface QuotaConfig {
  readonly limitedResources: readonly LimitedResource[];
}

const OPERATORS = new Set(["In", "NotIn", "Exists", "DoesNotExist"]);

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function strings(v: unknown, where: string): string[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v) || v.some((s) => typeof s !== "string")) {
    throw new Error(`ResourceQuota configuration: ${where} must be a list of strings`);
  }
  return v as string[];
}

/** The versions upstream reads: v1 in the apiserver config group, the older ones in their own. */
function acceptedTypes(naming: Naming): Map<string, string> {
  const legacy = naming.group("resourcequota.admission");
  return new Map([
    [`${naming.group("apiserver.config")}/v1`, "ResourceQuotaConfiguration"],
    [`${legacy}/v1beta1`, "Configuration"],
    [`${legacy}/v1alpha1`, "Configuration"],
  ]);
}

function checkType(raw: Record<string, unknown>, naming: Naming): void {
  const { apiVersion, kind } = raw;
  if (apiVersion === undefined && kind === undefined) return;
  const accepted = acceptedTypes(naming);
  const want = typeof apiVersion === "string" ? accepted.get(apiVersion) : undefined;
  if (want === undefined || (kind !== undefined && kind !== want)) {
    const wanted = [...accepted].map(([v, k]) => `${v} ${k}`).join(", ");
    throw new Error(
      `ResourceQuota configuration: no kind "${String(kind ?? "")}" is registered for version "${String(apiVersion ?? "")}" (want one of: ${wanted})`,
    );
  }
}

/** Parses the configuration; throws an Error naming the bad field. */
export function parseConfig(raw: unknown, naming: Naming): QuotaConfig {
  if (raw === undefined || raw === null) return { limitedResources: [] };
  if (!isObject(raw)) throw new Error("ResourceQuota configuration must be an object");
  checkType(raw, naming);
  const list = raw.limitedResources;
  if (list === undefined || list === null) return { limitedResources: [] };
  if (!Array.isArray(list)) throw new Error("ResourceQuota configuration: limitedResources must be a list");
  const limitedResources = list.map((item, i): LimitedResource => {
    const where = `limitedResources[${i}]`;
    if (!isObject(item)) throw new Error(`ResourceQuota configuration: ${where} must be an object`);
    if (typeof item.resource !== "string" || item.resource === "") {
      throw new Error(`ResourceQuota configuration: ${where}.resource: Required value`);
    }
    if (item.apiGroup !== undefined && typeof item.apiGroup !== "string") {
      throw new Error(`ResourceQuota configuration: ${where}.apiGroup must be a string`);
    }
    const scopes = item.matchScopes ?? [];
    if (!Array.isArray(scopes))
      throw new Error(`ResourceQuota configuration: ${where}.matchScopes must be a list`);
    const matchScopes = scopes.map((s, j): ScopeSelector => {
      const at = `${where}.matchScopes[${j}]`;
      if (!isObject(s) || typeof s.scopeName !== "string" || typeof s.operator !== "string") {
        throw new Error(`ResourceQuota configuration: ${at} needs a scopeName and an operator`);
      }
      if (!OPERATORS.has(s.operator)) {
        throw new Error(`ResourceQuota configuration: ${at}.operator: Unsupported value: "${s.operator}"`);
      }
      return { scopeName: s.scopeName, operator: s.operator, values: strings(s.values, `${at}.values`) };
    });
    return {
      apiGroup: typeof item.apiGroup === "string" ? item.apiGroup : "",
      resource: item.resource,
      matchContains: strings(item.matchContains, `${where}.matchContains`),
      matchScopes,
    };
  });
  return { limitedResources };
}
