// flowcontrol v1beta2 and v1beta3 defaults as upstream 1.27 applies them: flow schema precedence,
// the concurrency shares and lendable percent of limited priority levels, and queuing settings.
// In 1.27 a zero share count is always replaced (later releases let v1beta3 keep an explicit 0).
import { defaultNumber, defaultPointer } from "./util.ts";
import type { TypeDefaulter } from "./walk.ts";

const MATCHING_PRECEDENCE = 1000;
const CONCURRENCY_SHARES = 30;

const queuing: TypeDefaulter = (q) => {
  defaultNumber(q, "handSize", 8);
  defaultNumber(q, "queues", 64);
  defaultNumber(q, "queueLengthLimit", 50);
};

/** The flowcontrol defaulters of one version; v1beta2 calls the shares "assured". */
function versionDefaulters(version: string, sharesField: string): Record<string, TypeDefaulter> {
  return {
    [`flowcontrol/${version}.FlowSchemaSpec`]: (spec) =>
      defaultNumber(spec, "matchingPrecedence", MATCHING_PRECEDENCE),
    [`flowcontrol/${version}.LimitedPriorityLevelConfiguration`]: (limited) => {
      defaultNumber(limited, sharesField, CONCURRENCY_SHARES);
      defaultPointer(limited, "lendablePercent", 0);
    },
    [`flowcontrol/${version}.QueuingConfiguration`]: queuing,
  };
}

/** The flowcontrol defaulters by type id. */
export function flowcontrolDefaulters(): Record<string, TypeDefaulter> {
  return {
    ...versionDefaulters("v1beta2", "assuredConcurrencyShares"),
    ...versionDefaulters("v1beta3", "nominalConcurrencyShares"),
  };
}
