// Fields of built-in kinds that exist only while their feature gate is on. With the gate off, a
// write drops them, unless the stored object already uses them (so turning a gate off does not
// strip objects written while it was on), as upstream's strategies do.
import { asArray, asObject, type JsonObject } from "../common/json.ts";

export type FeatureGates = Readonly<Record<string, boolean>>;

const MATCH_CONDITIONS_GATE = "AdmissionWebhookMatchConditions";

function webhooksOf(object: JsonObject | undefined): JsonObject[] {
  return asArray(object?.webhooks)
    .map(asObject)
    .filter((w): w is JsonObject => w !== undefined);
}

function usesMatchConditions(object: JsonObject | undefined): boolean {
  return webhooksOf(object).some((w) => asArray(w.matchConditions).length > 0);
}

/**
 * Mutating and validating webhook configurations: what a write does to `webhooks[*].matchConditions`
 * under these gates (`old` is the stored object on updates); undefined when the gate is on.
 */
export function matchConditionsDropper(
  gates: FeatureGates,
): ((object: JsonObject, old: JsonObject | undefined) => void) | undefined {
  if (gates[MATCH_CONDITIONS_GATE] === true) return undefined;
  return (object, old) => {
    if (usesMatchConditions(old)) return;
    for (const webhook of webhooksOf(object)) delete webhook.matchConditions;
  };
}
