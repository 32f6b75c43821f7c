// The `limits` stage: at most N requests in flight at once (`--max-requests-inflight`) and M of
// them writes (`--max-mutating-requests-inflight`); beyond that, 429 with Retry-After. Long-running
// requests (watches, proxies, exec and the like) do not count, as upstream exempts them.

import { errors } from "../request/api-error.ts";
import type { RequestInfo } from "../request/request-info.ts";
import type { RequestContext } from "./context.ts";
import type { Stage } from "./pipeline.ts";

const MUTATING = new Set(["create", "update", "patch", "delete", "deletecollection"]);
/** kube-apiserver's long-running verbs and subresources (its BasicLongRunningRequestCheck lists). */
const LONG_RUNNING_VERBS: ReadonlySet<string> = new Set(["watch", "proxy"]);
const LONG_RUNNING_SUBRESOURCES: ReadonlySet<string> = new Set([
  "attach",
  "exec",
  "proxy",
  "log",
  "portforward",
]);

/**
 * Whether a request runs for as long as its client wants: such requests are exempt from the
 * in-flight limits and from the request deadline, here and when proxied to an extension server.
 */
export function isLongRunning(info: RequestInfo | undefined): boolean {
  if (!info) return false;
  if (LONG_RUNNING_VERBS.has(info.verb)) return true;
  return info.isResourceRequest && LONG_RUNNING_SUBRESOURCES.has(info.subresource);
}

export interface InflightLimits {
  /** 0 disables the limit. */
  readonly readOnly: number;
  readonly mutating: number;
}

export function inflightLimitStage(
  limits: InflightLimits,
  /** Told each count as it changes (apiserver_current_inflight_requests). */
  onChange?: (kind: "readOnly" | "mutating", inflight: number) => void,
): Stage & { readonly inflight: () => { readOnly: number; mutating: number } } {
  let readOnly = 0;
  let mutating = 0;
  return {
    name: "limits",
    inflight: () => ({ readOnly, mutating }),
    run(ctx: RequestContext) {
      if (isLongRunning(ctx.info)) return;
      const isMutating = MUTATING.has(ctx.info?.verb ?? "");
      const max = isMutating ? limits.mutating : limits.readOnly;
      const current = isMutating ? mutating : readOnly;
      if (max > 0 && current >= max) throw errors.tooManyRequests();
      // Counted apart from the call: `onChange?.(..., ++n)` skips the increment without a listener.
      if (isMutating) mutating++;
      else readOnly++;
      onChange?.(isMutating ? "mutating" : "readOnly", isMutating ? mutating : readOnly);
      ctx.reply.raw.on("close", () => {
        if (isMutating) mutating--;
        else readOnly--;
        onChange?.(isMutating ? "mutating" : "readOnly", isMutating ? mutating : readOnly);
      });
    },
  };
}
