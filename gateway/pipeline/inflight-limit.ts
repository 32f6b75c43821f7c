// The `limits` stage: at most N requests in flight at once (`--max-requests-inflight`) and M of
// them writes (`--max-mutating-requests-inflight`); beyond that, 429 with Retry-After. Watches
// are long-running and do not count, as upstream exempts them.
import { errors } from "../request/api-error.ts";
import type { RequestContext } from "./context.ts";
import type { Stage } from "./pipeline.ts";

const MUTATING = new Set(["create", "update", "patch", "delete", "deletecollection"]);
const LONG_RUNNING = new Set(["watch", "proxy"]);

export interface InflightLimits {
  /** 0 disables the limit. */
  readonly readOnly: number;
  readonly mutating: number;
}

export function inflightLimitStage(
  limits: InflightLimits,
): Stage & { readonly inflight: () => { readOnly: number; mutating: number } } {
  let readOnly = 0;
  let mutating = 0;
  return {
    name: "limits",
    inflight: () => ({ readOnly, mutating }),
    run(ctx: RequestContext) {
      const verb = ctx.info?.verb ?? "";
      if (LONG_RUNNING.has(verb)) return;
      const isMutating = MUTATING.has(verb);
      const max = isMutating ? limits.mutating : limits.readOnly;
      const current = isMutating ? mutating : readOnly;
      if (max > 0 && current >= max) throw errors.tooManyRequests();
      if (isMutating) mutating++;
      else readOnly++;
      ctx.reply.raw.once("close", () => {
        if (isMutating) mutating--;
        else readOnly--;
      });
    },
  };
}
