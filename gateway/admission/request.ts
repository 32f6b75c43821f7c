// One request's admission: attributes built from the request, the mutating phase for the
// handler's transforms and the validating phase for the registry's write hook. Annotations and
// warnings go straight into the request context (audit event, Warning headers).
import type { Naming } from "../../backends/naming/index.ts";
import type { JsonObject } from "../../backends/registry/index.ts";
import type { Operation } from "../../plugins/admission/index.ts";
import type { RequestContext } from "../pipeline/index.ts";
import type { ServedResource } from "../routing/resources.ts";
import { type AttributesInput, admissionAttributes } from "./attributes.ts";
import type { AdmissionChain } from "./chain.ts";

export interface RequestAdmission {
  /** The mutating phase; `object` is changed in place. */
  admit(object: JsonObject | undefined, old: JsonObject | undefined): Promise<void>;
  /** The validating phase, for the registry's `admission` write hook. */
  validate(object: JsonObject | undefined, old: JsonObject | undefined): Promise<void>;
}

export interface RequestAdmissionInput {
  readonly served: Pick<ServedResource, "schema">;
  readonly version: string;
  readonly subresource: string | undefined;
  readonly namespace: string | undefined;
  /** The name from the URL, or the body's on a create; "" for a generated name. */
  readonly name: string;
  readonly dryRun: boolean;
  /** The options kind the write carries, with what the client set. */
  readonly options?: { readonly kind: string; readonly fieldManager?: string; readonly force?: boolean };
  /** Sent DeleteOptions, as decoded. */
  readonly deleteOptions?: JsonObject;
  readonly kind?: AttributesInput["kind"];
  /** Fixed operation (CONNECT); otherwise from what the phase is given. */
  readonly operation?: Operation;
}

function operationOf(object: unknown, old: unknown): Operation {
  if (object && old) return "UPDATE";
  return object ? "CREATE" : "DELETE";
}

/** Upstream hands admission the options of the write it became: a patch that creates carries CreateOptions. */
function optionsFor(
  naming: Naming,
  input: RequestAdmissionInput,
  operation: Operation,
): JsonObject | undefined {
  const apiVersion = `${naming.group("meta")}/v1`;
  if (operation === "DELETE") return { ...(input.deleteOptions ?? {}), kind: "DeleteOptions", apiVersion };
  if (!input.options || operation === "CONNECT") return undefined;
  const kind = operation === "CREATE" ? "CreateOptions" : "UpdateOptions";
  return {
    kind,
    apiVersion,
    ...(input.dryRun ? { dryRun: ["All"] } : {}),
    ...(input.options.fieldManager ? { fieldManager: input.options.fieldManager } : {}),
  };
}

export function requestAdmission(
  chain: AdmissionChain | undefined,
  naming: Naming,
  ctx: RequestContext,
  input: RequestAdmissionInput,
): RequestAdmission | undefined {
  if (!chain) return undefined;
  // Every served request is authenticated (anonymous included); no user means nobody.
  const user = ctx.user ?? { username: "", uid: "", groups: [], extra: {} };
  ctx.auditAnnotations ??= {};
  ctx.auditRequestAnnotations ??= {};
  const sink = {
    annotations: ctx.auditAnnotations,
    requestAnnotations: ctx.auditRequestAnnotations,
    warnings: ctx.warnings,
  };
  const attributes = (object: JsonObject | undefined, old: JsonObject | undefined) => {
    const operation = input.operation ?? operationOf(object, old);
    return admissionAttributes(
      {
        operation,
        served: input.served,
        version: input.version,
        subresource: input.subresource,
        name: input.name,
        namespace: input.namespace,
        object,
        oldObject: old,
        options: optionsFor(naming, input, operation),
        dryRun: input.dryRun,
        user,
        ...(input.kind ? { kind: input.kind } : {}),
      },
      sink,
    );
  };
  return {
    admit: (object, old) => chain.admit(attributes(object, old)),
    validate: (object, old) => chain.validate(attributes(object, old)),
  };
}
