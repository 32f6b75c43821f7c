// discovery/v1 defaults as upstream 1.27 applies them: an EndpointSlice port has a name (possibly
// empty) and a protocol.
import { defaultPointer } from "./util.ts";
import type { TypeDefaulter } from "./walk.ts";

/** The discovery/v1 defaulters by type id. */
export function discoveryV1Defaulters(): Record<string, TypeDefaulter> {
  return {
    "discovery/v1.EndpointPort": (port) => {
      defaultPointer(port, "name", "");
      defaultPointer(port, "protocol", "TCP");
    },
  };
}
