// The validating webhooks of one request: every matching one called at once; the first refusal
// (or failure under failurePolicy Fail) to arrive refuses the request.
import type { Attributes } from "../index.ts";
import type { Webhook } from "./hooks.ts";
import { type InvokeContext, invoke } from "./invoke.ts";
import type { Invocation } from "./matching.ts";

export interface ValidatingDispatch extends InvokeContext {
  match(hook: Webhook, a: Attributes): Promise<Invocation | undefined>;
}

export async function dispatchValidating(
  ctx: ValidatingDispatch,
  hooks: readonly Webhook[],
  a: Attributes,
): Promise<void> {
  const invocations = (await Promise.all(hooks.map((h) => ctx.match(h, a)))).filter(
    (i): i is Invocation => i !== undefined,
  );
  if (invocations.length === 0) return;
  let first: unknown;
  let failed = false;
  await Promise.all(
    invocations.map((invocation) =>
      invoke(ctx, invocation, a, 0).catch((err: unknown) => {
        if (!failed) {
          failed = true;
          first = err;
        }
      }),
    ),
  );
  if (failed) throw first;
}
