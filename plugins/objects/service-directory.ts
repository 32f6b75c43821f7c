// The Services and EndpointSlices of the watch caches, as the Service call-outs read them.
import type { Naming } from "../../backends/naming/index.ts";
import type { ServiceDirectory } from "../../backends/services/index.ts";
import type { ObjectAccess } from "./objects.ts";

export function serviceDirectory(objects: ObjectAccess, naming: Naming): ServiceDirectory {
  const serviceLabel = naming.label("service-name");
  return {
    service: (namespace, name) => objects.get({ group: "", resource: "services" }, namespace, name),
    async endpointSlices(namespace, service) {
      const slices = objects.informer({ group: naming.group("discovery"), resource: "endpointslices" });
      if (!slices) return [];
      await slices.synced;
      return slices.list(namespace).filter((slice) => {
        const labels = (slice.metadata as { labels?: Record<string, string> }).labels;
        return labels?.[serviceLabel] === service;
      });
    },
  };
}
