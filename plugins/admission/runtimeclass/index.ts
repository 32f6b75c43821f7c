// RuntimeClass: a new pod naming a RuntimeClass gets that class's pod overhead and scheduling
// constraints (node selector, tolerations); a pod whose overhead disagrees with its class, or
// that sets one without a class defining it, is refused.
import { compareQuantities, quantityFromJson } from "../../../backends/schema/structural/index.ts";
import type { AdmissionPlugin, Attributes, JsonObject, PluginEnv, PluginRegistration } from "../index.ts";
import { badRequest, forbidden, internalError } from "../index.ts";
import { mergeTolerations, tolerationList } from "../podtolerationrestriction/index.ts";

const PLUGIN_NAME = "RuntimeClass";
const OVERHEAD_MISMATCH = "pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead";

function asObject(v: unknown): JsonObject | undefined {
  return typeof v === "object" && v !== null && !Array.isArray(v) ? (v as JsonObject) : undefined;
}

const present = (v: unknown) => v !== undefined && v !== null;

/** Resource lists equal as upstream's semantic equality has it: same names, equal quantities. */
function sameResources(a: unknown, b: unknown): boolean {
  const x = asObject(a) ?? {};
  const y = asObject(b) ?? {};
  const keys = Object.keys(x);
  if (keys.length !== Object.keys(y).length) return false;
  return keys.every((k) => {
    if (!Object.hasOwn(y, k)) return false;
    try {
      return compareQuantities(quantityFromJson(x[k]), quantityFromJson(y[k])) === 0;
    } catch {
      throw badRequest(
        `spec.overhead.${k}: quantities must match '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'`,
      );
    }
  });
}

function relevant(a: Attributes): JsonObject | undefined {
  if (a.operation !== "CREATE" || a.subresource !== "") return undefined;
  if (a.resource.group !== "" || a.resource.resource !== "pods") return undefined;
  return a.object;
}

function stringMap(value: unknown, path: string): Record<string, string> | undefined {
  if (!present(value)) return undefined;
  const map = asObject(value);
  if (!map || Object.values(map).some((v) => typeof v !== "string"))
    throw badRequest(`${path} must be a map of strings`);
  return map as Record<string, string>;
}

function plugin(env: PluginEnv): AdmissionPlugin {
  const ref = { group: env.naming.group("node"), resource: "runtimeclasses" };

  /** The pod's spec and its RuntimeClass (undefined when it names none). */
  async function prepare(a: Attributes, pod: JsonObject): Promise<[JsonObject, JsonObject | undefined]> {
    const spec = present(pod.spec) ? asObject(pod.spec) : {};
    if (!spec) throw badRequest("Resource was marked with kind Pod but was unable to be converted");
    const name = spec.runtimeClassName;
    if (!present(name)) return [spec, undefined];
    if (typeof name !== "string") throw badRequest("spec.runtimeClassName must be a string");
    let rc: JsonObject | undefined;
    try {
      rc = await env.objects.get(ref, undefined, name);
    } catch (err) {
      throw internalError(err instanceof Error ? err.message : String(err));
    }
    if (!rc) throw forbidden(a, `pod rejected: RuntimeClass ${JSON.stringify(name)} not found`);
    return [spec, rc];
  }

  function setOverhead(a: Attributes, spec: JsonObject, rc: JsonObject): void {
    const overhead = asObject(rc.overhead);
    if (!overhead) return;
    const podFixed = overhead.podFixed;
    if (present(spec.overhead) && !sameResources(podFixed, spec.overhead))
      throw forbidden(a, OVERHEAD_MISMATCH);
    if (present(podFixed)) spec.overhead = structuredClone(podFixed);
    else delete spec.overhead;
  }

  function setScheduling(a: Attributes, spec: JsonObject, rc: JsonObject): void {
    const scheduling = asObject(rc.scheduling);
    if (!scheduling) return;
    const wanted = stringMap(scheduling.nodeSelector, "runtimeClass.scheduling.nodeSelector") ?? {};
    const own = stringMap(spec.nodeSelector, "spec.nodeSelector");
    let selector: Record<string, string> | undefined = own;
    if (!own) selector = Object.keys(wanted).length > 0 ? { ...wanted } : undefined;
    else {
      for (const key of Object.keys(wanted).sort()) {
        const podValue = own[key];
        if (podValue !== undefined && podValue !== wanted[key]) {
          throw forbidden(
            a,
            `conflict: runtimeClass.scheduling.nodeSelector[${key}] = ${wanted[key]}; pod.spec.nodeSelector[${key}] = ${podValue}`,
          );
        }
      }
      selector = { ...own, ...wanted };
    }
    const podTolerations = present(spec.tolerations) ? tolerationList(spec.tolerations) : [];
    if (typeof podTolerations === "string") throw badRequest(`spec.tolerations: ${podTolerations}`);
    const classTolerations = present(scheduling.tolerations) ? tolerationList(scheduling.tolerations) : [];
    if (typeof classTolerations === "string")
      throw internalError(`RuntimeClass tolerations: ${classTolerations}`);
    const merged = mergeTolerations(podTolerations, classTolerations);
    if (selector) spec.nodeSelector = selector;
    if (merged.length > 0) spec.tolerations = structuredClone(merged);
  }

  return {
    name: PLUGIN_NAME,
    async admit(a) {
      const pod = relevant(a);
      if (!pod) return;
      if (!present(pod.spec)) pod.spec = {};
      const [spec, rc] = await prepare(a, pod);
      if (!rc) return;
      setOverhead(a, spec, rc);
      setScheduling(a, spec, rc);
    },
    async validate(a) {
      const pod = relevant(a);
      if (!pod) return;
      const [spec, rc] = await prepare(a, pod);
      const overhead = asObject(rc?.overhead);
      if (overhead) {
        if (!sameResources(overhead.podFixed, spec.overhead)) throw forbidden(a, OVERHEAD_MISMATCH);
      } else if (present(spec.overhead)) {
        throw forbidden(
          a,
          "pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead",
        );
      }
    },
  };
}

export const registration: PluginRegistration = { name: PLUGIN_NAME, factory: plugin };
