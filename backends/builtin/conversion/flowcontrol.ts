// API Priority and Fairness objects between flowcontrol v1beta2 and v1beta3, as upstream 1.27
// converts them. The two versions have the same shapes but for one renamed field: a
// PriorityLevelConfiguration's `spec.limited.assuredConcurrencyShares` (v1beta2) is
// `spec.limited.nominalConcurrencyShares` (v1beta3), same value. FlowSchemas only change their
// `apiVersion`. (The annotation later releases use to keep a zero share count across versions does
// not exist in 1.27: no annotation takes part here.)
import type { Naming } from "../../naming/naming.ts";

export type FlowcontrolVersion = "v1beta2" | "v1beta3";
type Json = Record<string, unknown>;

/** The name of a limited priority level's share count in each version. */
const SHARES_FIELD: Readonly<Record<FlowcontrolVersion, string>> = {
  v1beta2: "assuredConcurrencyShares",
  v1beta3: "nominalConcurrencyShares",
};

function asObj(value: unknown): Json | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Json) : undefined;
}

function isVersion(version: string): version is FlowcontrolVersion {
  return version === "v1beta2" || version === "v1beta3";
}

/**
 * `limited` as the other version spells it: the source's share field renamed in place. The
 * target's name in a source object is a field the source version does not know, so it is dropped,
 * as decoding the source version drops it.
 */
function renameShares(limited: Json, from: FlowcontrolVersion, to: FlowcontrolVersion): Json {
  const out: Json = {};
  for (const [key, value] of Object.entries(limited)) {
    if (key === SHARES_FIELD[from]) out[SHARES_FIELD[to]] = value;
    else if (key !== SHARES_FIELD[to]) out[key] = value;
  }
  return out;
}

/**
 * Converts a FlowSchema or PriorityLevelConfiguration, given in the version its `apiVersion`
 * names, to `toVersion` of the flowcontrol group (spelled with the naming preset's suffix). The
 * input is never modified; odd input never throws. An object of any other version keeps its
 * fields and only gets the new `apiVersion`.
 */
export function flowcontrolConversion(naming: Naming): (object: Json, toVersion: FlowcontrolVersion) => Json {
  const group = naming.group("flowcontrol");
  return (object, toVersion) => {
    const out = structuredClone(asObj(object) ?? {});
    const apiVersion = typeof out.apiVersion === "string" ? out.apiVersion : "";
    const from = apiVersion.slice(apiVersion.indexOf("/") + 1);
    out.apiVersion = `${group}/${toVersion}`;
    if (out.kind !== "PriorityLevelConfiguration" || !isVersion(from) || from === toVersion) return out;
    const spec = asObj(out.spec);
    const limited = asObj(spec?.limited);
    if (spec && limited) spec.limited = renameShares(limited, from, toVersion);
    return out;
  };
}
