// Whether a webhook is called for a request: its rules (at the request's version or, with
// matchPolicy Equivalent, another served one), then its namespace and object selectors.
import type { ObjectAccess } from "../../objects/index.ts";
import type { Attributes } from "../index.ts";
import { matchingVersion, namespaceSelectorMatches, objectSelectorMatches } from "../matching.ts";
import type { Webhook } from "./hooks.ts";

/** The resource version a webhook is called at. */
export interface Invocation {
  readonly hook: Webhook;
  /** The version of the resource the webhook sees (the request's, or an equivalent one). */
  readonly version: string;
}

/** The invocation for this request, or undefined when the webhook does not apply to it. */
export async function invocationFor(
  hook: Webhook,
  a: Attributes,
  objects: ObjectAccess,
): Promise<Invocation | undefined> {
  const version = matchingVersion(hook.rules, hook.matchPolicy, a);
  if (version === undefined || !objectSelectorMatches(hook.objectSelector, a)) return undefined;
  if (!(await namespaceSelectorMatches(hook.namespaceSelector, a, objects))) return undefined;
  return { hook, version };
}
