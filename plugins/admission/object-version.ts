// A request's object at another served version of its resource (webhooks' and policies'
// matchPolicy Equivalent, and a webhook's patched object back to the storage version). Objects of
// another kind (a subresource's Scale, a Binding) are not converted: they have no such versions.
import type { Attributes, JsonObject } from "./contract.ts";

/** The object at `version`; the object itself when it is already there (callers do not change it). */
export function objectAtVersion(
  a: Attributes,
  object: JsonObject | undefined,
  version: string,
): JsonObject | null {
  if (!object) return null;
  const apiVersion = typeof object.apiVersion === "string" ? object.apiVersion : "";
  const ownVersion = apiVersion.slice(apiVersion.indexOf("/") + 1);
  if (ownVersion === version || object.kind !== a.kind.kind || a.kind.group !== a.resource.group)
    return object;
  return a.convert(object, version);
}
