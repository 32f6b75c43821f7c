// Admission attributes of one write, built the same way for every operation (the chain) and for
// plugin tests (testing.ts).

import { cloneJson } from "../../backends/common/json.ts";
import { storageVersion } from "../../backends/schema/index.ts";
import type { Attributes, JsonObject, Operation } from "../../plugins/admission/index.ts";
import type { UserInfo } from "../pipeline/index.ts";
import type { ServedResource } from "../routing/resources.ts";

export interface AttributesInput {
  readonly operation: Operation;
  readonly served: Pick<ServedResource, "schema">;
  /** The version the client used. */
  readonly version: string;
  readonly subresource?: string;
  readonly name: string;
  readonly namespace?: string;
  readonly object?: JsonObject;
  readonly oldObject?: JsonObject;
  readonly options?: JsonObject;
  readonly dryRun?: boolean;
  readonly user: UserInfo;
  /** The kind when a subresource's body is another kind (Scale, Binding, Eviction). */
  readonly kind?: { readonly group: string; readonly version: string; readonly kind: string };
}

/** Attributes plus what plugins left for the request: audit annotations and warnings. */
export interface CollectedAttributes extends Attributes, AttributesSink {}

/** Where annotations and warnings go: fresh collections unless the request's own are given. */
export interface AttributesSink {
  readonly annotations: Record<string, string>;
  /** Annotations for audit events at level Request or above. */
  readonly requestAnnotations: Record<string, string>;
  readonly warnings: string[];
}

export function admissionAttributes(
  input: AttributesInput,
  sink: AttributesSink = { annotations: {}, requestAnnotations: {}, warnings: [] },
): CollectedAttributes {
  const schema = input.served.schema;
  const { annotations, requestAnnotations, warnings } = sink;
  const stored = storageVersion(schema).name;
  return {
    operation: input.operation,
    kind: input.kind ?? { group: schema.group, version: input.version, kind: schema.kind },
    resource: { group: schema.group, version: input.version, resource: schema.plural },
    subresource: input.subresource ?? "",
    name: input.name,
    namespace: schema.namespaced || schema.plural === "namespaces" ? (input.namespace ?? "") : "",
    object: input.object,
    oldObject: input.oldObject,
    options: input.options,
    dryRun: input.dryRun ?? false,
    user: input.user,
    storageVersion: stored,
    versions: schema.versions.filter((v) => v.served).map((v) => v.name),
    convert(object, version) {
      if (version === stored || !schema.convert) return cloneJson(object);
      return schema.convert(cloneJson(object), version);
    },
    annotate(key, value, level = "Metadata") {
      (level === "Request" ? requestAnnotations : annotations)[key] = value;
    },
    warn(message) {
      // A write retried after a conflict admits again; say each thing once.
      if (!warnings.includes(message)) warnings.push(message);
    },
    annotations,
    requestAnnotations,
    warnings,
  };
}
