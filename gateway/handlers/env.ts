// What the resource handlers are given: the server's parts (env), and for a verb handler the
// resource and place the request addresses.
import type { Naming } from "../../backends/naming/index.ts";
import type { JsonObject } from "../../backends/registry/index.ts";
import type { DispatcherPool, ServiceDirectory, TlsIdentity } from "../../backends/services/index.ts";
import type { AdmissionChain } from "../admission/chain.ts";
import type { GatewayMetrics } from "../metrics.ts";
import type { RequestContext } from "../pipeline/index.ts";
import type { ResourceTable, ServedResource, VirtualResource } from "../routing/resources.ts";
import type { Codec } from "./codec.ts";

export interface HandlerEnv {
  readonly resources: ResourceTable;
  readonly naming: Naming;
  readonly codec: Codec;
  readonly watchListEnabled: boolean;
  /** The admission plugins every write goes through; none when absent. */
  readonly admission?: AdmissionChain;
  /**
   * Subresources that answer `create` with a computed object of another kind (a ServiceAccount's
   * `token`), by `<group>/<resource>/<subresource>`; the virtual resource's schema names the body
   * kind and its version.
   */
  readonly subresourceActions?: ReadonlyMap<string, VirtualResource>;
  /**
   * Checks a write against the object it would store, before it is stored (RBAC's escalation
   * rules today; the admission chain later). Runs inside the update loop against the current
   * object; throws an ApiError to refuse.
   */
  readonly checkWrite?: (ctx: RequestContext, write: WriteCheck) => Promise<void>;
  /** Where requests to deprecated versions are counted. */
  readonly metrics?: GatewayMetrics;
  /**
   * Asks the authorizer about the request with another verb (a PATCH or PUT that creates
   * needs `create` too); throws the 403 when it is not allowed.
   */
  readonly authorizeVerb?: (ctx: RequestContext, verb: string) => Promise<void>;
  /**
   * What the `proxy` subresource and the pod streams call out with: Services as resolved for every
   * call-out, their client, and the TLS identity kubelets are reached with.
   */
  readonly proxy?: {
    readonly directory: ServiceDirectory;
    readonly dispatchers: DispatcherPool;
    readonly kubelet: TlsIdentity;
  };
}

export interface WriteCheck {
  readonly verb: "create" | "update";
  readonly served: ServedResource;
  readonly namespace: string | undefined;
  readonly subresource: string | undefined;
  readonly object: JsonObject;
  readonly old: JsonObject | undefined;
}

/** Where a request points in a stored resource, once routing has checked the path's shape. */
export interface VerbTarget {
  readonly served: ServedResource;
  /** The namespace of a namespaced resource's request; undefined for cluster-scoped ones. */
  readonly ns: string | undefined;
  /** "" for collection requests (a list may still be pinned to a name by a field selector). */
  readonly name: string;
  readonly subresource: string | undefined;
  /** The version the request names. */
  readonly version: string;
}

/** One verb over a stored resource: reads the request, calls the registry, sends the answer. */
export type VerbHandler = (ctx: RequestContext, env: HandlerEnv, target: VerbTarget) => Promise<void>;
