// `--admission-control-config-file`: an AdmissionConfiguration listing plugin configurations,
// each inline (`configuration`) or in a file of its own (`path`, relative to this file).
import { readFile } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import { load as loadYaml } from "js-yaml";
import type { Naming } from "../../backends/naming/index.ts";
import { AdmissionPluginError } from "./plugins.ts";

/** The versions upstream reads this file in. */
function acceptedVersions(naming: Naming): string[] {
  return [
    `${naming.group("apiserver.config")}/v1`,
    `${naming.group("apiserver.config")}/v1alpha1`,
    `${naming.group("apiserver")}/v1alpha1`,
  ];
}

function parse(text: string, where: string): unknown {
  try {
    return loadYaml(text);
  } catch (err) {
    throw new AdmissionPluginError(`${where}: not YAML or JSON: ${(err as Error).message}`);
  }
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** Each named plugin's configuration object, from the file at `path`. */
export async function loadAdmissionConfig(path: string, naming: Naming): Promise<Map<string, unknown>> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (err) {
    throw new AdmissionPluginError(`cannot read ${path}: ${(err as Error).message}`);
  }
  const doc = parse(text, path);
  if (!isObject(doc)) throw new AdmissionPluginError(`${path}: expected an AdmissionConfiguration object`);
  const versions = acceptedVersions(naming);
  if (doc.kind !== "AdmissionConfiguration" || !versions.includes(String(doc.apiVersion)))
    throw new AdmissionPluginError(
      `${path}: expected kind AdmissionConfiguration in one of ${versions.join(", ")}, got ${String(doc.kind)} ${String(doc.apiVersion)}`,
    );
  const out = new Map<string, unknown>();
  const plugins = doc.plugins ?? [];
  if (!Array.isArray(plugins)) throw new AdmissionPluginError(`${path}: plugins must be a list`);
  for (const [i, entry] of plugins.entries()) {
    const where = `${path}: plugins[${i}]`;
    if (!isObject(entry) || typeof entry.name !== "string" || entry.name === "")
      throw new AdmissionPluginError(`${where}: name is required`);
    if (out.has(entry.name)) throw new AdmissionPluginError(`${where}: ${entry.name} is configured twice`);
    if (entry.configuration !== undefined && entry.path !== undefined)
      throw new AdmissionPluginError(`${where}: give either path or configuration, not both`);
    if (entry.configuration !== undefined) {
      if (!isObject(entry.configuration))
        throw new AdmissionPluginError(`${where}: configuration must be an object`);
      out.set(entry.name, entry.configuration);
    } else if (typeof entry.path === "string" && entry.path !== "") {
      const file = resolve(dirname(path), entry.path);
      let body: string;
      try {
        body = await readFile(file, "utf8");
      } catch (err) {
        throw new AdmissionPluginError(`${where}: cannot read ${file}: ${(err as Error).message}`);
      }
      out.set(entry.name, parse(body, file));
    } else {
      throw new AdmissionPluginError(`${where}: path or configuration is required`);
    }
  }
  return out;
}
