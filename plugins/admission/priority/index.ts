// Priority: a new pod's `priority` and `preemptionPolicy` come from its PriorityClass (or the
// global default class); a PriorityClass may only be the global default when no other one is.
import type { AdmissionPlugin, Attributes, JsonObject, PluginEnv, PluginRegistration } from "../index.ts";
import { badRequest, forbidden, internalError } from "../index.ts";

const PLUGIN_NAME = "Priority";
const PREEMPT_LOWER = "PreemptLowerPriority";
/** The two classes the system defines, for when their objects have not been created. */
const SYSTEM_CLASSES: Readonly<Record<string, number>> = {
  "system-cluster-critical": 2000000000,
  "system-node-critical": 2000001000,
};

interface Resolved {
  readonly name: string;
  readonly value: number;
  readonly preemptionPolicy: string | undefined;
}

function asObject(v: unknown): JsonObject | undefined {
  return typeof v === "object" && v !== null && !Array.isArray(v) ? (v as JsonObject) : undefined;
}

function resolved(pc: JsonObject): Resolved {
  const meta = asObject(pc.metadata) ?? {};
  return {
    name: typeof meta.name === "string" ? meta.name : "",
    value: typeof pc.value === "number" ? pc.value : 0,
    preemptionPolicy: typeof pc.preemptionPolicy === "string" ? pc.preemptionPolicy : undefined,
  };
}

function plugin(env: PluginEnv): AdmissionPlugin {
  const ref = { group: env.naming.group("scheduling"), resource: "priorityclasses" };
  const classes = env.objects.informer(ref);

  /** The global default class; of several (a race), the lowest value. */
  async function globalDefault(): Promise<Resolved | undefined> {
    if (!classes) throw internalError("priorityclasses are not served");
    await classes.synced;
    let best: Resolved | undefined;
    for (const pc of classes.list()) {
      if (pc.globalDefault !== true) continue;
      const r = resolved(pc);
      if (!best || r.value < best.value) best = r;
    }
    return best;
  }

  async function byName(name: string): Promise<Resolved | undefined> {
    let pc: JsonObject | undefined;
    try {
      pc = await env.objects.get(ref, undefined, name);
    } catch (err) {
      throw internalError(
        `failed to get PriorityClass with name ${name}: ${err instanceof Error ? err.message : String(err)}`,
      );
    }
    if (pc) return resolved(pc);
    const value = SYSTEM_CLASSES[name];
    return value === undefined ? undefined : { name, value, preemptionPolicy: PREEMPT_LOWER };
  }

  async function admitPod(a: Attributes): Promise<void> {
    const pod = a.object;
    if (!pod) return;
    if (pod.spec === undefined || pod.spec === null) pod.spec = {};
    const spec = asObject(pod.spec);
    if (!spec) throw badRequest("resource was marked with kind Pod but was unable to be converted");
    if (a.operation === "UPDATE") {
      // The values set at creation stay; validation refuses any other change to them.
      const old = asObject(a.oldObject?.spec) ?? {};
      if (spec.priority == null && old.priority != null) spec.priority = old.priority;
      if (spec.preemptionPolicy == null && old.preemptionPolicy != null)
        spec.preemptionPolicy = old.preemptionPolicy;
      return;
    }
    const className = spec.priorityClassName ?? "";
    if (typeof className !== "string") throw badRequest("spec.priorityClassName must be a string");
    let found: Resolved;
    if (className === "") {
      let dflt: Resolved | undefined;
      try {
        dflt = await globalDefault();
      } catch (err) {
        throw internalError(
          `failed to get default priority class: ${err instanceof Error ? err.message : String(err)}`,
        );
      }
      found = dflt ?? { name: "", value: 0, preemptionPolicy: PREEMPT_LOWER };
      if (found.name) spec.priorityClassName = found.name;
    } else {
      const pc = await byName(className);
      if (!pc) throw forbidden(a, `no PriorityClass with name ${className} was found`);
      found = pc;
    }
    const given = spec.priority;
    if (given !== undefined && given !== null) {
      if (typeof given !== "number" || !Number.isInteger(given))
        throw badRequest("spec.priority must be an integer");
      if (given !== found.value) {
        throw forbidden(
          a,
          `the integer value of priority (${given}) must not be provided in pod spec; priority admission controller computed ${found.value} from the given PriorityClass name`,
        );
      }
    }
    spec.priority = found.value;
    if (found.preemptionPolicy !== undefined) {
      const policy = spec.preemptionPolicy;
      if (policy !== undefined && policy !== null && policy !== found.preemptionPolicy) {
        throw forbidden(
          a,
          `the string value of PreemptionPolicy (${String(policy)}) must not be provided in pod spec; priority admission controller computed ${found.preemptionPolicy} from the given PriorityClass name`,
        );
      }
      spec.preemptionPolicy = found.preemptionPolicy;
    }
  }

  return {
    name: PLUGIN_NAME,
    async admit(a) {
      if (a.subresource !== "" || a.resource.group !== "" || a.resource.resource !== "pods") return;
      if (a.operation === "CREATE" || a.operation === "UPDATE") await admitPod(a);
    },
    async validate(a) {
      if (a.subresource !== "" || a.resource.group !== ref.group || a.resource.resource !== ref.resource)
        return;
      if (a.operation !== "CREATE" && a.operation !== "UPDATE") return;
      const pc = a.object;
      if (pc?.globalDefault !== true) return;
      let dflt: Resolved | undefined;
      try {
        dflt = await globalDefault();
      } catch (err) {
        throw internalError(
          `failed to get default priority class: ${err instanceof Error ? err.message : String(err)}`,
        );
      }
      if (!dflt) return;
      const name = resolved(pc).name || a.name;
      if (a.operation === "CREATE" || dflt.name !== name)
        throw forbidden(
          a,
          `PriorityClass ${dflt.name} is already marked as default. Only one default can exist`,
        );
    },
  };
}

export const registration: PluginRegistration = { name: PLUGIN_NAME, factory: plugin };
