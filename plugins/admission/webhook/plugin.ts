// MutatingAdmissionWebhook and ValidatingAdmissionWebhook: the webhooks of the stored
// configurations, called for every request they match.
import { WebhookCredentials } from "../../client/index.ts";
import type { AdmissionPlugin, Attributes, PluginEnv, Reinvocation } from "../index.ts";
import { forbidden } from "../index.ts";
import { WebhookCaller } from "./caller.ts";
import { evaluateConditions } from "./conditions.ts";
import { kubeConfigFileOf, WebhookConfigurationError } from "./config.ts";
import { type Webhook, WebhookSource } from "./hooks.ts";
import { invocationFor } from "./matching.ts";
import { webhookMetrics } from "./metrics.ts";
import { dispatchMutating, type MutationState } from "./mutating.ts";
import { dispatchValidating } from "./validating.ts";

export const MUTATING = "MutatingAdmissionWebhook";
export const VALIDATING = "ValidatingAdmissionWebhook";

/** How long a request waits for the configurations to be loaded at start before it is refused. */
const READY_WAIT_MS = 10_000;

/** Webhooks are never called for the objects that configure admission (no lock-out). */
const EXEMPT = new Set([
  "mutatingwebhookconfigurations",
  "validatingwebhookconfigurations",
  "validatingadmissionpolicies",
  "validatingadmissionpolicybindings",
]);

export function createWebhookPlugin(env: PluginEnv, mutating: boolean): AdmissionPlugin {
  const name = mutating ? MUTATING : VALIDATING;
  const group = env.naming.group("admissionregistration");
  const resource = mutating ? "mutatingwebhookconfigurations" : "validatingwebhookconfigurations";
  let credentials: WebhookCredentials;
  try {
    credentials = WebhookCredentials.load(kubeConfigFileOf(env.configuration, env.naming, name));
  } catch (err) {
    if (err instanceof WebhookConfigurationError) throw err;
    throw new WebhookConfigurationError(`${name}: ${(err as Error).message}`);
  }
  const informer = env.objects.informer({ group, resource });
  // Without the configuration API there are no webhooks to call.
  const source = informer ? new WebhookSource(informer, mutating) : undefined;
  let ready = false;
  void source?.synced.then(() => {
    ready = true;
  });
  const caller = new WebhookCaller(env.objects, env.naming, credentials);
  const admissionGroup = env.naming.group("admission");
  const conditions = env.options.featureGates.AdmissionWebhookMatchConditions
    ? (hook: Webhook, a: Attributes, version: string) =>
        evaluateConditions(hook.matchConditions, a, version, env.authorizer)
    : undefined;
  const ctx = {
    caller,
    metrics: webhookMetrics(env.metrics),
    type: mutating ? ("admit" as const) : ("validating" as const),
    admissionGroup,
    annotationDomain: `${mutating ? "mutation" : "validating"}.webhook.${admissionGroup}`,
    patchDomain: `webhook.${admissionGroup}`,
    signal: env.signal,
    match: (hook: Webhook, a: Attributes) => invocationFor(hook, a, env.objects, conditions),
  };

  const hooksFor = async (a: Attributes): Promise<readonly Webhook[]> => {
    if (!source) return [];
    if (a.resource.group === group && EXEMPT.has(a.resource.resource)) return [];
    if (!ready) {
      const timeout = new Promise<"late">((resolve) => setTimeout(resolve, READY_WAIT_MS, "late").unref());
      if ((await Promise.race([source.synced, timeout])) === "late")
        throw forbidden(a, "not yet ready to handle request");
    }
    return source.hooks();
  };

  // Per request, between the chain's two mutating passes; kept on the attributes under this
  // plugin's own symbol, not in a WeakMap keyed by them (V8's young collections keep such entries,
  // and with them each request's objects, until a full collection).
  const STATE = Symbol("mutation state");
  const admit = async (a: Attributes, reinvocation?: Reinvocation) => {
    const hooks = await hooksFor(a);
    if (hooks.length === 0) return;
    const held = a as Attributes & { [STATE]?: MutationState };
    let state = held[STATE];
    if (!state) {
      state = { reinvocable: new Set(), reinvoke: new Set() };
      // Hidden, so a copy of the attributes does not share it.
      Object.defineProperty(held, STATE, { value: state });
    }
    const again = await dispatchMutating(ctx, hooks, a, state, reinvocation?.reinvoking ?? false);
    // Called outside a chain (no second pass to ask for): the webhooks' own second pass at once.
    if (again && reinvocation) reinvocation.request();
    else if (again) await dispatchMutating(ctx, hooks, a, state, true);
  };
  const validate = async (a: Attributes) => {
    const hooks = await hooksFor(a);
    if (hooks.length > 0) await dispatchValidating(ctx, hooks, a);
  };
  return {
    name,
    ...(mutating ? { admit } : { validate }),
    async close() {
      source?.close();
      await caller.close();
    },
  };
}
