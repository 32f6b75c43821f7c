// The PodSecurityConfiguration from the admission configuration file: defaults for namespaces
// without labels, and exemptions. Upstream decodes strictly and validates at startup, so every
// problem here is a factory-time error.
import type { Naming } from "../../../backends/naming/index.ts";
import { type FieldError, field, formatFieldError } from "../../../backends/registry/index.ts";
import { type Policy, parseLevel, parseVersion } from "./levels.ts";
import { record } from "./pod-spec.ts";

export interface PodSecurityConfig {
  readonly defaults: Policy;
  readonly exemptions: {
    readonly usernames: ReadonlySet<string>;
    readonly namespaces: ReadonlySet<string>;
    readonly runtimeClasses: ReadonlySet<string>;
  };
}

const VERSIONS = ["v1", "v1beta1", "v1alpha1"];
const DEFAULT_KEYS = [
  "enforce",
  "enforce-version",
  "audit",
  "audit-version",
  "warn",
  "warn-version",
] as const;
const EXEMPTION_KEYS = ["usernames", "namespaces", "runtimeClasses"] as const;

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

function dnsLabelErrors(value: string): string[] {
  const errors: string[] = [];
  if (value.length > 63) errors.push("must be no more than 63 characters");
  if (!DNS_LABEL.test(value)) {
    errors.push(
      "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
    );
  }
  return errors;
}

function dnsSubdomainErrors(value: string): string[] {
  const errors: string[] = [];
  if (value.length > 253) errors.push("must be no more than 253 characters");
  if (!DNS_SUBDOMAIN.test(value)) {
    errors.push(
      "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
    );
  }
  return errors;
}

function fail(message: string): never {
  throw new Error(`PodSecurity configuration error: ${message}`);
}

function aggregate(errors: readonly string[]): string {
  return errors.length === 1 ? (errors[0] ?? "") : `[${errors.join(", ")}]`;
}

function stringList(value: unknown, path: string): string[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value) || value.some((v) => typeof v !== "string")) {
    fail(`${path}: expected a list of strings`);
  }
  return value as string[];
}

/** Parses, defaults and validates the plugin's configuration (undefined: all privileged). */
export function parseConfig(configuration: unknown, naming: Naming): PodSecurityConfig {
  const group = naming.group("pod-security.admission.config");
  let defaultsIn: Record<string, unknown> = {};
  let exemptionsIn: Record<string, unknown> = {};
  if (configuration !== undefined && configuration !== null) {
    const config = record(configuration);
    if (!config) fail("expected a PodSecurityConfiguration object");
    const apiVersion = config.apiVersion;
    const kind = config.kind;
    if (typeof apiVersion !== "string" || typeof kind !== "string" || !apiVersion || !kind) {
      fail("Object 'Kind' is missing in configuration");
    }
    const [g, v] = apiVersion.split("/");
    if (g !== group || !v || !VERSIONS.includes(v) || kind !== "PodSecurityConfiguration") {
      fail(`no kind "${kind}" is registered for version "${apiVersion}"`);
    }
    for (const key of Object.keys(config)) {
      if (!["apiVersion", "kind", "defaults", "exemptions"].includes(key))
        fail(`strict decoding error: unknown field "${key}"`);
    }
    if (config.defaults !== undefined && config.defaults !== null) {
      defaultsIn = record(config.defaults) ?? fail("defaults: expected an object");
    }
    if (config.exemptions !== undefined && config.exemptions !== null) {
      exemptionsIn = record(config.exemptions) ?? fail("exemptions: expected an object");
    }
    for (const key of Object.keys(defaultsIn)) {
      if (!(DEFAULT_KEYS as readonly string[]).includes(key))
        fail(`strict decoding error: unknown field "defaults.${key}"`);
    }
    for (const key of Object.keys(exemptionsIn)) {
      if (!(EXEMPTION_KEYS as readonly string[]).includes(key)) {
        fail(`strict decoding error: unknown field "exemptions.${key}"`);
      }
    }
  }

  const errors: FieldError[] = [];
  const defaultsText = (key: (typeof DEFAULT_KEYS)[number]): string => {
    const value = defaultsIn[key];
    if (value !== undefined && value !== null && typeof value !== "string")
      fail(`defaults.${key}: expected a string`);
    // Empty or unset fields default to privileged / latest.
    return (value as string | undefined) || (key.endsWith("-version") ? "latest" : "privileged");
  };
  const level = (key: "enforce" | "audit" | "warn") => {
    const value = defaultsText(key);
    const parsed = parseLevel(value);
    if ("error" in parsed) {
      errors.push(field.invalid(`defaults.${key}`, value, parsed.error));
      return "privileged" as const;
    }
    return parsed.level;
  };
  const version = (key: "enforce-version" | "audit-version" | "warn-version") => {
    const value = defaultsText(key);
    const parsed = parseVersion(value);
    if ("error" in parsed) {
      errors.push(field.invalid(`defaults.${key}`, value, parsed.error));
      return "latest" as const;
    }
    return parsed.version;
  };
  const defaults: Policy = {
    enforce: { level: level("enforce"), version: version("enforce-version") },
    warn: { level: level("warn"), version: version("warn-version") },
    audit: { level: level("audit"), version: version("audit-version") },
  };

  const unique = (key: (typeof EXEMPTION_KEYS)[number], check: (v: string) => string[]): Set<string> => {
    const seen = new Set<string>();
    stringList(exemptionsIn[key], `exemptions.${key}`).forEach((value, i) => {
      const path = `exemptions.${key}[${i}]`;
      const problems = check(value);
      if (problems.length) errors.push(field.invalid(path, value, problems.join(", ")));
      else if (seen.has(value)) errors.push(field.duplicate(path, value));
      else seen.add(value);
    });
    return seen;
  };
  const exemptions = {
    namespaces: unique("namespaces", dnsLabelErrors),
    runtimeClasses: unique("runtimeClasses", dnsSubdomainErrors),
    usernames: unique("usernames", (v) => (v === "" ? ["username must not be empty"] : [])),
  };
  if (errors.length) {
    throw new Error(`PodSecurity invalid: ${aggregate(errors.map(formatFieldError))}`);
  }
  return { defaults, exemptions };
}
