// The admission chain (DESIGN.md, "One request"): the enabled plugins in upstream's order. The
// mutating phase runs in the handler's transform, against the current object; the validating
// phase runs in the registry after the kind's own validation, just before the write.
import { Histogram, type Registry } from "prom-client";
import {
  AdmissionError,
  type AdmissionPlugin,
  type Attributes,
  type PluginEnv,
  type PluginRegistration,
  type Reinvocation,
  sharedMetric,
} from "../../plugins/admission/index.ts";
import { AdmissionPluginError } from "./plugins.ts";

export interface AdmissionChain {
  /** The enabled plugins, in run order. */
  readonly names: readonly string[];
  /** The mutating phase: plugins may change `attributes.object`. */
  admit(attributes: Attributes): Promise<void>;
  /** The validating phase. */
  validate(attributes: Attributes): Promise<void>;
  close(): Promise<void>;
}

export interface ChainOptions {
  /** Plugin names in run order (resolvePlugins). */
  readonly enabled: readonly string[];
  readonly registrations: ReadonlyMap<string, PluginRegistration>;
  /** Per-plugin configuration from the AdmissionConfiguration file. */
  readonly configurations: ReadonlyMap<string, unknown>;
  readonly env: Omit<PluginEnv, "configuration">;
}

type Phase = "admit" | "validate";

const SECOND_PASS: Reinvocation = { reinvoking: true, request: () => {} };

function stepMetric(registry: Registry): Histogram<"type" | "operation" | "rejected"> {
  const name = "apiserver_admission_step_admission_duration_seconds";
  return sharedMetric(
    registry,
    name,
    () =>
      new Histogram({
        name,
        help: "Admission sub-step latency in seconds, by phase (admit or validate), operation and whether it was rejected.",
        labelNames: ["type", "operation", "rejected"] as const,
        buckets: [0.005, 0.025, 0.1, 0.5, 1.0, 2.5],
        registers: [registry],
      }),
  );
}

export async function buildAdmissionChain(options: ChainOptions): Promise<AdmissionChain> {
  for (const name of options.configurations.keys()) {
    if (!options.registrations.has(name) && !options.enabled.includes(name))
      throw new AdmissionPluginError(`the admission configuration names an unknown plugin: ${name}`);
  }
  const plugins: AdmissionPlugin[] = [];
  try {
    for (const name of options.enabled) {
      const registration = options.registrations.get(name);
      if (!registration)
        throw new AdmissionPluginError(`admission plugin ${name} is not available in this build`);
      plugins.push(
        await registration.factory({ ...options.env, configuration: options.configurations.get(name) }),
      );
    }
  } catch (err) {
    await Promise.allSettled(plugins.map((p) => p.close?.()));
    throw err;
  }
  const mutating = plugins.filter((p) => p.admit);
  const validating = plugins.filter((p) => p.validate);
  const metric = stepMetric(options.env.metrics);

  const run = async (phase: Phase, list: readonly AdmissionPlugin[], a: Attributes) => {
    if (list.length === 0) return;
    const start = performance.now();
    let rejected = false;
    try {
      let requested = false;
      const first: Reinvocation = {
        reinvoking: false,
        request: () => {
          requested = true;
        },
      };
      for (let pass = 0; pass < 2; pass++) {
        const reinvocation = pass === 0 ? first : SECOND_PASS;
        for (const plugin of list) {
          // Most plugins decide synchronously; awaiting only real promises saves a turn each.
          const pending = phase === "admit" ? plugin.admit?.(a, reinvocation) : plugin.validate?.(a);
          if (pending) await pending;
        }
        if (!requested) break;
      }
    } catch (err) {
      rejected = err instanceof AdmissionError;
      throw err;
    } finally {
      metric.observe(
        { type: phase, operation: a.operation, rejected: String(rejected) },
        (performance.now() - start) / 1000,
      );
    }
  };
  return {
    names: plugins.map((p) => p.name),
    admit: (a) => run("admit", mutating, a),
    validate: (a) => run("validate", validating, a),
    async close() {
      await Promise.allSettled(plugins.map((p) => p.close?.()));
    },
  };
}
