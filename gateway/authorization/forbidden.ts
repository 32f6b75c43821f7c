// The 403 a denied request gets. Clients print its message verbatim, so it keeps upstream's
// exact shapes:
//   pods "x" is forbidden: User "alice" cannot get resource "pods" in API group "" in the namespace "default"
//   nodes is forbidden: User "alice" cannot list resource "nodes" in API group "" at the cluster scope
//   forbidden: User "alice" cannot get path "/foo"
// followed by `: <reason>` when the authorizer gave one.
import type { Attributes } from "../../plugins/authorization/index.ts";
import { goQuote } from "../negotiation/json-decode.ts";
import { ApiError, type StatusDetails } from "../request/api-error.ts";

// The part built from request data must not read as HTML when a browser shows it.
const sanitize = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

/** Who may not do what: `User "alice" cannot list resource "pods" in API group "" ...`. */
export function forbiddenMessage(a: Attributes): string {
  const who = `User ${goQuote(a.user?.username ?? "")} cannot ${a.verb}`;
  if (!a.isResourceRequest) return `${who} path ${goQuote(a.path)}`;
  const resource = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
  const what = `${who} resource ${goQuote(resource)} in API group ${goQuote(a.apiGroup)}`;
  return a.namespace ? `${what} in the namespace ${goQuote(a.namespace)}` : `${what} at the cluster scope`;
}

/** The Forbidden Status for denied attributes, with the authorizer's reason appended. */
export function forbidden(a: Attributes, reason: string): ApiError {
  const why = reason ? `${sanitize(forbiddenMessage(a))}: ${reason}` : sanitize(forbiddenMessage(a));
  const group = a.isResourceRequest ? a.apiGroup : "";
  const resource = a.isResourceRequest ? a.resource : "";
  const name = a.isResourceRequest ? a.name : "";
  const qualified = group ? `${resource}.${group}` : resource;
  let message: string;
  if (!group && !resource) message = `forbidden: ${why}`;
  else if (!name) message = `${qualified} is forbidden: ${why}`;
  else message = `${qualified} ${goQuote(name)} is forbidden: ${why}`;
  // Empty detail fields are left out, as upstream's JSON omits them.
  const details: StatusDetails = {
    ...(name ? { name } : {}),
    ...(group ? { group } : {}),
    ...(resource ? { kind: resource } : {}),
  };
  return new ApiError(403, "Forbidden", message, details);
}
