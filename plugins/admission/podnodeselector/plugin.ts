// PodNodeSelector: a new pod's node selector is merged with its namespace's (the namespace
// annotation, or the configured cluster default) and must not conflict with it nor leave the
// namespace's whitelist from the configuration.
import type { AdmissionPlugin, Attributes, JsonObject, PluginEnv } from "../index.ts";
import { AdmissionError, badRequest, forbidden, internalError } from "../index.ts";
import { conflicts, type LabelMap, parseNodeSelector, SelectorError } from "./selector.ts";

export const PLUGIN_NAME = "PodNodeSelector";
const CLUSTER_DEFAULT = "clusterDefaultNodeSelector";

function asObject(v: unknown): JsonObject | undefined {
  return typeof v === "object" && v !== null && !Array.isArray(v) ? (v as JsonObject) : undefined;
}

function fail(message: string): never {
  throw new Error(`PodNodeSelector configuration error: ${message}`);
}

/** The configured selectors by namespace (and `clusterDefaultNodeSelector`), parsed. */
export function parseConfig(configuration: unknown): ReadonlyMap<string, LabelMap> {
  const out = new Map<string, LabelMap>();
  if (configuration === undefined || configuration === null) return out;
  const config = asObject(configuration) ?? fail("expected an object with podNodeSelectorPluginConfig");
  const entries = config.podNodeSelectorPluginConfig;
  if (entries === undefined || entries === null) return out;
  const map = asObject(entries) ?? fail("podNodeSelectorPluginConfig: expected a map of node selectors");
  for (const [name, text] of Object.entries(map)) {
    if (typeof text !== "string") fail(`podNodeSelectorPluginConfig.${name}: expected a string`);
    try {
      out.set(name, parseNodeSelector(text));
    } catch (err) {
      fail(`podNodeSelectorPluginConfig.${name}: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  return out;
}

function nodeSelectorOf(spec: JsonObject): Record<string, string> {
  const raw = spec.nodeSelector;
  if (raw === undefined || raw === null) return {};
  const map = asObject(raw);
  if (!map || Object.values(map).some((v) => typeof v !== "string"))
    throw badRequest("spec.nodeSelector must be a map of strings");
  return map as Record<string, string>;
}

export function createPodNodeSelector(env: PluginEnv): AdmissionPlugin {
  const config = parseConfig(env.configuration);
  const annotation = env.naming.label("node-selector", "scheduler.alpha");

  function relevant(a: Attributes): JsonObject | undefined {
    if (a.operation !== "CREATE" || a.subresource !== "") return undefined;
    if (a.resource.group !== "" || a.resource.resource !== "pods") return undefined;
    return a.object;
  }

  async function namespaceSelector(name: string): Promise<LabelMap> {
    let ns: JsonObject | undefined;
    try {
      ns = await env.objects.get({ group: "", resource: "namespaces" }, undefined, name);
    } catch (err) {
      throw internalError(err instanceof Error ? err.message : String(err));
    }
    if (!ns) {
      throw new AdmissionError(404, "NotFound", `namespaces "${name}" not found`, {
        name,
        kind: "namespaces",
      });
    }
    const text = asObject(asObject(ns.metadata)?.annotations)?.[annotation];
    if (typeof text !== "string") return config.get(CLUSTER_DEFAULT) ?? {};
    try {
      return parseNodeSelector(text);
    } catch (err) {
      if (err instanceof SelectorError) throw badRequest(err.message);
      throw err;
    }
  }

  async function validate(a: Attributes): Promise<void> {
    const pod = relevant(a);
    if (!pod) return;
    const selector = nodeSelectorOf(asObject(pod.spec) ?? {});
    const namespaced = await namespaceSelector(a.namespace);
    if (conflicts(namespaced, selector))
      throw forbidden(a, "pod node label selector conflicts with its namespace node label selector");
    const whitelist = config.get(a.namespace) ?? {};
    if (Object.keys(whitelist).length === 0) return;
    if (Object.entries(selector).some(([k, v]) => !Object.hasOwn(whitelist, k) || whitelist[k] !== v))
      throw forbidden(a, "pod node label selector labels conflict with its namespace whitelist");
  }

  return {
    name: PLUGIN_NAME,
    async admit(a) {
      const pod = relevant(a);
      if (!pod) return;
      if (pod.spec === undefined || pod.spec === null) pod.spec = {};
      const spec = asObject(pod.spec);
      if (!spec) throw badRequest("pod spec must be an object");
      const selector = nodeSelectorOf(spec);
      const namespaced = await namespaceSelector(a.namespace);
      if (conflicts(namespaced, selector))
        throw forbidden(a, "pod node label selector conflicts with its namespace node label selector");
      const merged = { ...namespaced, ...selector };
      if (Object.keys(merged).length > 0) spec.nodeSelector = merged;
      await validate(a);
    },
    validate,
  };
}
