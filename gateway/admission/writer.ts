// Plugins' in-process writes (plugins/admission ObjectWriter) through the served registries: the
// object lifecycle applies, admission does not (these are the server's own bookkeeping writes).

import { cloneJson } from "../../backends/common/json.ts";
import type { JsonObject } from "../../backends/registry/index.ts";
import type { ObjectWriter } from "../../plugins/admission/index.ts";
import type { ApiObject, ResourceRef } from "../../plugins/objects/index.ts";
import type { ResourceTable } from "../routing/resources.ts";

export function objectWriter(resources: ResourceTable): ObjectWriter {
  const registryOf = (ref: ResourceRef) => {
    const served = resources.byResource(ref.group, ref.resource);
    if (!served) throw new Error(`${ref.resource}.${ref.group} is not served`);
    return served.registry;
  };
  return {
    async create(ref, namespace, object) {
      const { object: stored } = await registryOf(ref).create(namespace, cloneJson(object));
      return stored as ApiObject;
    },
    async update(ref, namespace, name, transform, options) {
      const { object } = await registryOf(ref).update(
        namespace,
        name,
        (current) => {
          if (!current) throw registryOf(ref).notFound(name);
          return transform(current as JsonObject);
        },
        { createIfMissing: false, ...(options?.subresource ? { subresource: options.subresource } : {}) },
      );
      return object as ApiObject;
    },
  };
}
