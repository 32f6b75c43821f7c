// What resolving a Service needs to read: the Service and its EndpointSlices. The gateway gives
// one backed by its watch caches; backends and plugins that call out to Services take it as given.
import type { JsonObject } from "../common/json.ts";

export interface ServiceDirectory {
  /** The Service, or undefined when there is none. */
  service(namespace: string, name: string): Promise<JsonObject | undefined>;
  /** The EndpointSlices labelled as the Service's (the discovery group's `service-name` label). */
  endpointSlices(namespace: string, service: string): Promise<readonly JsonObject[]>;
}
