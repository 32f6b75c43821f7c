// An extension's answer to the discovery probe, read as upstream's clients decode an
// APIResourceList: a JSON object of that kind whose fields have their declared types (a Go client
// fails to decode `verbs: 7`, so the gateway does not show such a list in its discovery either).

/** APIResource fields by JSON type; others are ignored, null is a zero value as in Go. */
const STRINGS = ["name", "singularName", "group", "version", "kind", "storageVersionHash"];
const BOOLEANS = ["namespaced"];
const STRING_LISTS = ["verbs", "shortNames", "categories"];

function fieldProblem(resource: Record<string, unknown>): string | undefined {
  for (const key of STRINGS)
    if (resource[key] != null && typeof resource[key] !== "string") return `${key}: not a string`;
  for (const key of BOOLEANS)
    if (resource[key] != null && typeof resource[key] !== "boolean") return `${key}: not a boolean`;
  for (const key of STRING_LISTS) {
    const value = resource[key];
    if (value != null && (!Array.isArray(value) || value.some((v) => typeof v !== "string")))
      return `${key}: not a list of strings`;
  }
  return undefined;
}

/** The APIResourceList in `body`, or why it is none. */
export function readResourceList(
  body: string,
): { list: Record<string, unknown>; problem?: undefined } | { list?: undefined; problem: string } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return { problem: "not an APIResourceList" };
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed))
    return { problem: "not an APIResourceList" };
  const list = parsed as Record<string, unknown>;
  if (list.kind !== "APIResourceList") return { problem: "not an APIResourceList" };
  if (list.groupVersion != null && typeof list.groupVersion !== "string")
    return { problem: "not an APIResourceList: groupVersion: not a string" };
  const resources = list.resources ?? [];
  if (!Array.isArray(resources)) return { problem: "not an APIResourceList: resources: not a list" };
  for (const [i, resource] of resources.entries()) {
    if (resource === null) continue;
    if (typeof resource !== "object" || Array.isArray(resource))
      return { problem: `not an APIResourceList: resources[${i}]: not an object` };
    const problem = fieldProblem(resource as Record<string, unknown>);
    if (problem) return { problem: `not an APIResourceList: resources[${i}].${problem}` };
  }
  return { list };
}
