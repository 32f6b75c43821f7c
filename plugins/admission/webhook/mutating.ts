// The mutating webhooks of one request: called one after another in configuration order, each
// answer's JSON patch applied atomically to the object at the webhook's version; webhooks with
// reinvocationPolicy IfNeeded are called once more when a later one changed the object.
import { applyJsonPatch } from "../../../gateway/patch/index.ts";
import { type Attributes, type JsonObject, objectAtVersion } from "../index.ts";
import type { Webhook } from "./hooks.ts";
import { type InvokeContext, invoke, settleFailure } from "./invoke.ts";
import type { Invocation } from "./matching.ts";

export interface MutatingDispatch extends InvokeContext {
  /** The invocation for a webhook, or undefined when it does not apply to the request. */
  match(hook: Webhook, a: Attributes): Promise<Invocation | undefined>;
  /** `mutation.webhook.admission.<domain>`. */
  readonly annotationDomain: string;
  /** `webhook.admission.<domain>`: where patch annotations go (`patch.` + this). */
  readonly patchDomain: string;
}

function sameJson(x: unknown, y: unknown): boolean {
  if (x === y) return true;
  if (typeof x !== "object" || typeof y !== "object" || x === null || y === null) return false;
  if (Array.isArray(x) !== Array.isArray(y)) return false;
  if (Array.isArray(x) && Array.isArray(y))
    return x.length === y.length && x.every((v, i) => sameJson(v, y[i]));
  const a = x as JsonObject;
  const b = y as JsonObject;
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  return keys.every((k) => Object.hasOwn(b, k) && sameJson(a[k], b[k]));
}

/** Replaces the attributes' object with `next`, keeping its identity (callers hold it). */
function replaceObject(target: JsonObject, next: JsonObject): void {
  for (const key of Object.keys(target)) delete target[key];
  Object.assign(target, next);
}

/** Applies one answer's patch; returns whether the object changed, or throws a reason text. */
function applyPatch(invocation: Invocation, a: Attributes, patch: unknown): boolean {
  const object = a.object;
  if (!object)
    throw new Error(
      `admission webhook "${invocation.hook.name}" attempted to modify the object, which is not supported for this operation`,
    );
  const seen = objectAtVersion(a, object, invocation.version) as JsonObject;
  let patched: unknown;
  try {
    patched = applyJsonPatch(seen, patch);
  } catch (err) {
    throw new Error(`the webhook's patch cannot be applied: ${(err as Error).message}`);
  }
  if (typeof patched !== "object" || patched === null || Array.isArray(patched))
    throw new Error("the webhook's patch does not leave an object");
  const back = objectAtVersion(a, patched as JsonObject, a.storageVersion) as JsonObject;
  if (sameJson(back, object)) return false;
  replaceObject(object, back);
  return true;
}

/** What one request's mutating webhooks remember between the chain's two passes. */
export interface MutationState {
  /** Webhooks with IfNeeded that ran in the first pass. */
  readonly reinvocable: Set<string>;
  /** Those a later change makes run again in the second pass. */
  readonly reinvoke: Set<string>;
}

/**
 * One pass over the mutating webhooks: all of them in the first, in the second only those a later
 * change made due again. Returns whether a second pass is wanted.
 */
export async function dispatchMutating(
  ctx: MutatingDispatch,
  hooks: readonly Webhook[],
  a: Attributes,
  state: MutationState,
  reinvoking: boolean,
): Promise<boolean> {
  const round = reinvoking ? 1 : 0;
  for (const hook of hooks) {
    if (reinvoking && !state.reinvoke.has(hook.key)) continue;
    const invocation = await ctx.match(hook, a);
    if (!invocation) continue;
    const response = await invoke(ctx, invocation, a, round);
    let mutated = false;
    if (response?.patch !== undefined && (response.patch as unknown[]).length > 0) {
      try {
        mutated = applyPatch(invocation, a, response.patch);
      } catch (err) {
        settleFailure(ctx, hook, a, round, (err as Error).message, 0);
      }
      if (mutated) {
        a.annotate(
          `patch.${ctx.patchDomain}/round_${round}_index_${hook.index}`,
          JSON.stringify({
            configuration: hook.configuration,
            webhook: hook.name,
            patch: response.patch,
            patchType: "JSONPatch",
          }),
          "Request",
        );
      }
    }
    if (response) {
      a.annotate(
        `${ctx.annotationDomain}/round_${round}_index_${hook.index}`,
        JSON.stringify({ configuration: hook.configuration, webhook: hook.name, mutated }),
      );
    }
    if (!reinvoking) {
      if (mutated) for (const key of state.reinvocable) state.reinvoke.add(key);
      if (hook.reinvocationPolicy === "IfNeeded") state.reinvocable.add(hook.key);
    }
  }
  return !reinvoking && state.reinvoke.size > 0;
}
