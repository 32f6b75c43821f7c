// What a request asks to do, as authorizers see it: the classified request plus its user.
import type { Attributes } from "../../plugins/authorization/index.ts";
import type { UserInfo } from "../pipeline/index.ts";
import type { RequestInfo } from "../request/request-info.ts";

/**
 * Resource requests carry the service verb (list, watch, deletecollection, ...) and the object's
 * coordinates; non-resource requests the decoded path and the lowercased HTTP method.
 */
export function requestAttributes(user: UserInfo, info: RequestInfo): Attributes {
  return {
    user,
    verb: info.verb,
    isResourceRequest: info.isResourceRequest,
    path: info.path,
    namespace: info.isResourceRequest ? info.namespace : "",
    apiGroup: info.isResourceRequest ? info.apiGroup : "",
    apiVersion: info.isResourceRequest ? info.apiVersion : "",
    resource: info.isResourceRequest ? info.resource : "",
    subresource: info.isResourceRequest ? info.subresource : "",
    name: info.isResourceRequest ? info.name : "",
  };
}
