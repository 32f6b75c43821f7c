// PodTolerationRestriction's Configuration (podtolerationrestriction.admission.<suffix>, v1alpha1
// or v1): the cluster-wide default tolerations and whitelist used where a namespace sets none.
import type { Naming } from "../../../backends/naming/index.ts";
import { isQualifiedName, isValidLabelValue } from "../../../backends/validation/index.ts";
import type { JsonObject } from "../index.ts";
import { tolerationList } from "./tolerations.ts";

export interface TolerationConfig {
  readonly default: readonly JsonObject[];
  readonly whitelist: readonly JsonObject[];
}

const VERSIONS = ["v1alpha1", "v1"];
const EFFECTS = ["", "NoSchedule", "PreferNoSchedule", "NoExecute"];

function fail(message: string): never {
  throw new Error(`PodTolerationRestriction configuration error: ${message}`);
}

const qualifiedName = (key: string) => isQualifiedName(key).length === 0;

/** Upstream's toleration validation, as the configuration's lists get it. */
function validate(list: readonly JsonObject[], path: string): string[] {
  const errors: string[] = [];
  list.forEach((t, i) => {
    const at = `${path}[${i}]`;
    const key = typeof t.key === "string" ? t.key : "";
    const operator = typeof t.operator === "string" ? t.operator : "";
    const value = typeof t.value === "string" ? t.value : "";
    const effect = typeof t.effect === "string" ? t.effect : "";
    if (key && !qualifiedName(key)) errors.push(`${at}.key: Invalid value: "${key}": not a qualified name`);
    if (!key && operator !== "Exists") {
      errors.push(
        `${at}.operator: Invalid value: "${operator}": operator must be Exists when \`key\` is empty, which means "match all values and all keys"`,
      );
    }
    if (typeof t.tolerationSeconds === "number" && effect !== "NoExecute") {
      errors.push(
        `${at}.effect: Invalid value: "${effect}": effect must be 'NoExecute' when \`tolerationSeconds\` is set`,
      );
    }
    if (operator === "Equal" || operator === "") {
      if (isValidLabelValue(value).length > 0)
        errors.push(`${at}.operator: Invalid value: "${value}": not a valid label value`);
    } else if (operator === "Exists") {
      if (value)
        errors.push(
          `${at}.operator: Invalid value: "${t.value}": value must be empty when \`operator\` is 'Exists'`,
        );
    } else {
      errors.push(`${at}.operator: Unsupported value: "${operator}": supported values: "Equal", "Exists"`);
    }
    if (!EFFECTS.includes(effect)) {
      errors.push(
        `${at}.effect: Unsupported value: "${effect}": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"`,
      );
    }
  });
  return errors;
}

/** Parses and validates the configuration; undefined gives empty lists (no cluster defaults). */
export function parseConfig(configuration: unknown, naming: Naming): TolerationConfig {
  if (configuration === undefined || configuration === null) return { default: [], whitelist: [] };
  if (typeof configuration !== "object" || Array.isArray(configuration))
    fail("expected a Configuration object");
  const config = configuration as JsonObject;
  const { apiVersion, kind } = config;
  if (typeof apiVersion !== "string" || typeof kind !== "string" || !apiVersion || !kind)
    fail("Object 'Kind' is missing in configuration");
  const group = naming.group("podtolerationrestriction.admission");
  const [g, v, extra] = apiVersion.split("/");
  if (g !== group || !v || extra !== undefined || !VERSIONS.includes(v) || kind !== "Configuration")
    fail(`no kind "${kind}" is registered for version "${apiVersion}"`);
  for (const key of Object.keys(config)) {
    if (!["apiVersion", "kind", "default", "whitelist"].includes(key))
      fail(`strict decoding error: unknown field "${key}"`);
  }
  const list = (name: "default" | "whitelist"): JsonObject[] => {
    const value = config[name];
    if (value === undefined || value === null) return [];
    const parsed = tolerationList(value);
    if (typeof parsed === "string") fail(`${name}: ${parsed}`);
    return parsed;
  };
  const result = { default: list("default"), whitelist: list("whitelist") };
  const errors = [...validate(result.default, "default"), ...validate(result.whitelist, "whitelist")];
  if (errors.length > 0) fail(errors.length === 1 ? (errors[0] ?? "") : `[${errors.join(", ")}]`);
  return result;
}
