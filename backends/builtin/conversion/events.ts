// events.<domain>/v1 Events are core/v1 Events under other field names (upstream keeps one
// internal Event for both). The mapping is one to one, so conversions lose nothing.
import type { Naming } from "../../naming/naming.ts";

type Json = Record<string, unknown>;

/** events/v1 field → core/v1 field; the fields not listed have the same name in both. */
const TO_CORE: Readonly<Record<string, string>> = {
  reportingController: "reportingComponent",
  regarding: "involvedObject",
  note: "message",
  deprecatedSource: "source",
  deprecatedFirstTimestamp: "firstTimestamp",
  deprecatedLastTimestamp: "lastTimestamp",
  deprecatedCount: "count",
};
const TO_EVENTS: Readonly<Record<string, string>> = Object.fromEntries(
  Object.entries(TO_CORE).map(([events, core]) => [core, events]),
);

function rename(object: Json, names: Readonly<Record<string, string>>, apiVersion: string): Json {
  const out: Json = {};
  for (const [key, value] of Object.entries(object)) {
    out[key === "apiVersion" ? key : (names[key] ?? key)] = key === "apiVersion" ? apiVersion : value;
  }
  out.apiVersion = apiVersion;
  return out;
}

/**
 * Converts between the events group's `v1` and the stored core form, named `core` here; the
 * object's own apiVersion says which form it is in.
 */
export function eventsConversion(naming: Naming): (object: Json, toVersion: string) => Json {
  const eventsV1 = `${naming.group("events")}/v1`;
  return (object, toVersion) => {
    const isCore = object.apiVersion === "v1";
    if (toVersion === "v1") return isCore ? rename(object, TO_EVENTS, eventsV1) : { ...object };
    return isCore ? { ...object } : rename(object, TO_CORE, "v1");
  };
}
