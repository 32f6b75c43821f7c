// apiregistration/v1 defaults as upstream 1.27 applies them: an APIService's service port.
import { defaultPointer } from "./util.ts";
import type { TypeDefaulter } from "./walk.ts";

/** The apiregistration/v1 defaulters by type id. */
export function apiregistrationV1Defaulters(): Record<string, TypeDefaulter> {
  return {
    "apiregistration/v1.ServiceReference": (service) => defaultPointer(service, "port", 443),
  };
}
