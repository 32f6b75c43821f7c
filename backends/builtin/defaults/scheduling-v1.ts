// scheduling/v1 defaults as upstream 1.27 applies them.
import { defaultPointer } from "./util.ts";
import type { TypeDefaulter } from "./walk.ts";

/** The scheduling/v1 defaulters by type id. */
export function schedulingV1Defaulters(): Record<string, TypeDefaulter> {
  return {
    // Pods of a priority class may preempt lower-priority pods unless the class says Never.
    "scheduling/v1.PriorityClass": (pc) => defaultPointer(pc, "preemptionPolicy", "PreemptLowerPriority"),
  };
}
