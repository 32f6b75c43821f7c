// PodTolerationRestriction: on create, a pod's tolerations are merged with its namespace's default
// tolerations (or the cluster's); every pod that is not BestEffort also tolerates memory
// pressure; the result must fit the namespace's whitelist (or the cluster's).
import type { AdmissionPlugin, Attributes, JsonObject, PluginEnv } from "../index.ts";
import { AdmissionError, badRequest, internalError } from "../index.ts";
import { parseConfig } from "./config.ts";
import { isBestEffort } from "./qos.ts";
import { mergeTolerations, tolerationList, verifyAgainstWhitelist } from "./tolerations.ts";

export const PLUGIN_NAME = "PodTolerationRestriction";

function asObject(v: unknown): JsonObject | undefined {
  return typeof v === "object" && v !== null && !Array.isArray(v) ? (v as JsonObject) : undefined;
}

function relevant(a: Attributes): JsonObject | undefined {
  if (a.resource.group !== "" || a.resource.resource !== "pods" || a.subresource !== "") return undefined;
  if (a.operation !== "CREATE" && a.operation !== "UPDATE") return undefined;
  return a.object;
}

function specOf(pod: JsonObject): JsonObject {
  if (pod.spec === undefined || pod.spec === null) pod.spec = {};
  const spec = asObject(pod.spec);
  if (!spec) throw badRequest("pod spec must be an object");
  return spec;
}

function podTolerations(spec: JsonObject): JsonObject[] {
  if (spec.tolerations === undefined || spec.tolerations === null) return [];
  const list = tolerationList(spec.tolerations);
  if (typeof list === "string") throw badRequest(`spec.tolerations: ${list}`);
  return list;
}

export function createPodTolerationRestriction(env: PluginEnv): AdmissionPlugin {
  const config = parseConfig(env.configuration, env.naming);
  const defaultsKey = env.naming.label("defaultTolerations", "scheduler.alpha");
  const whitelistKey = env.naming.label("tolerationsWhitelist", "scheduler.alpha");
  const memoryPressure = env.naming.label("memory-pressure", "node");

  async function namespace(name: string): Promise<JsonObject> {
    let found: JsonObject | undefined;
    try {
      found = await env.objects.get({ group: "", resource: "namespaces" }, undefined, name);
    } catch (err) {
      throw internalError(err instanceof Error ? err.message : String(err));
    }
    if (!found) {
      throw new AdmissionError(404, "NotFound", `namespaces "${name}" not found`, {
        name,
        kind: "namespaces",
      });
    }
    return found;
  }

  /** The namespace's list under `key`: undefined when unset, [] when set to "". */
  async function fromNamespace(name: string, key: string): Promise<JsonObject[] | undefined> {
    const annotations = asObject(asObject((await namespace(name)).metadata)?.annotations);
    const text = annotations?.[key];
    if (typeof text !== "string") return undefined;
    if (text === "") return [];
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (err) {
      throw badRequest(`${key}: ${err instanceof Error ? err.message : String(err)}`);
    }
    // JSON null decodes to no tolerations, as upstream's decoder does.
    if (parsed === null) return [];
    const list = tolerationList(parsed);
    if (typeof list === "string") throw badRequest(`${key}: ${list}`);
    return list;
  }

  async function validate(a: Attributes): Promise<void> {
    const pod = relevant(a);
    if (!pod) return;
    const spec = asObject(pod.spec) ?? {};
    const tolerations = podTolerations(spec);
    if (tolerations.length === 0) return;
    let whitelist = await fromNamespace(a.namespace, whitelistKey);
    let scope = "namespace";
    if (whitelist === undefined) {
      whitelist = [...config.whitelist];
      scope = "cluster";
    }
    if (!verifyAgainstWhitelist(tolerations, whitelist)) {
      // Upstream returns this as a bare error; it is a refusal, so a 403 here.
      throw new AdmissionError(
        403,
        "Forbidden",
        `pod tolerations (possibly merged with namespace default tolerations) conflict with its ${scope} whitelist`,
      );
    }
  }

  return {
    name: PLUGIN_NAME,
    async admit(a) {
      const pod = relevant(a);
      if (!pod) return;
      const spec = specOf(pod);
      const current = podTolerations(spec);
      const extra: JsonObject[] = [];
      if (a.operation === "CREATE") {
        extra.push(...((await fromNamespace(a.namespace, defaultsKey)) ?? config.default));
      }
      if (!isBestEffort(spec)) extra.push({ key: memoryPressure, operator: "Exists", effect: "NoSchedule" });
      if (extra.length > 0) spec.tolerations = structuredClone(mergeTolerations(current, extra));
      await validate(a);
    },
    validate,
  };
}
