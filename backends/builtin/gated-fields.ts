// Fields of built-in kinds that exist only while their feature gate is on. With the gate off, a
// write drops them, unless the stored object already uses them (so turning a gate off does not
// strip objects written while it was on), as upstream's strategies do.
import { asArray, asObject, type JsonObject } from "../common/json.ts";
import type { BuiltinKind } from "./kind.ts";

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

/** Mutating and validating webhook configurations: `webhooks[*].matchConditions`. */
export function withMatchConditionsGate(kind: BuiltinKind, gates: FeatureGates): BuiltinKind {
  if (gates[MATCH_CONDITIONS_GATE] === true) return kind;
  const drop = (object: JsonObject, old: JsonObject | undefined) => {
    if (usesMatchConditions(old)) return;
    for (const webhook of webhooksOf(object)) delete webhook.matchConditions;
  };
  const { prepareForCreate, prepareForUpdate } = kind.strategy;
  return {
    ...kind,
    strategy: {
      ...kind.strategy,
      prepareForCreate(object) {
        prepareForCreate?.(object);
        drop(object, undefined);
      },
      prepareForUpdate(object, old) {
        prepareForUpdate?.(object, old);
        drop(object, old);
      },
    },
  };
}
