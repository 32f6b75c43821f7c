// The admission contract (DESIGN.md, "One request", steps 3-4): plugins see one write as
// Attributes, may change the object in the mutating phase (`admit`) and may refuse it in the
// validating phase (`validate`). The gateway's chain runs them in upstream's order inside the
// registry's update loop, against the current stored object.
import type { Registry } from "prom-client";
import type { Naming } from "../../backends/naming/index.ts";
import type { UserInfo } from "../../gateway/pipeline/index.ts";
import type { Authorizer } from "../authorization/index.ts";
import type { ApiObject, ObjectAccess, ResourceRef } from "../objects/index.ts";

export type JsonObject = Record<string, unknown>;

export type Operation = "CREATE" | "UPDATE" | "DELETE" | "CONNECT";

export type AuditAnnotationLevel = "Metadata" | "Request";

export interface GroupVersionKind {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
}

export interface GroupVersionResource {
  readonly group: string;
  readonly version: string;
  readonly resource: string;
}

/** One write as admission sees it (upstream's admission.Attributes). */
export interface Attributes {
  readonly operation: Operation;
  /** The object's kind at the version the client used. */
  readonly kind: GroupVersionKind;
  /** The resource at the version the client used. */
  readonly resource: GroupVersionResource;
  /** `status`, `scale`, `binding`, ... or "" for the resource itself. */
  readonly subresource: string;
  /** The object's name; "" on a create that asks for a generated name. */
  readonly name: string;
  /** "" for cluster-scoped resources (a Namespace's own name is in `name`). */
  readonly namespace: string;
  /**
   * The object to be stored, in the storage version (`storageVersion`): mutating plugins change
   * it in place. Undefined for DELETE and for CONNECT.
   */
  readonly object: JsonObject | undefined;
  /** The stored object being replaced or deleted, in the storage version; never to be changed. */
  readonly oldObject: JsonObject | undefined;
  /** CreateOptions, UpdateOptions, PatchOptions or DeleteOptions as sent, when there were any. */
  readonly options: JsonObject | undefined;
  readonly dryRun: boolean;
  readonly user: UserInfo;
  /** The version `object` and `oldObject` are in. */
  readonly storageVersion: string;
  /** Every served version of the resource (webhooks' and policies' `matchPolicy: Equivalent`). */
  readonly versions: readonly string[];
  /** The object converted to another served version of its resource (webhooks' matchPolicy). */
  convert(object: JsonObject, version: string): JsonObject;
  /**
   * An audit annotation on the request's event; keys are `<plugin-domain>/<name>`. `Request`
   * annotations (they may carry object content) are kept only for events at level Request or above.
   */
  annotate(key: string, value: string, level?: AuditAnnotationLevel): void;
  /** A `Warning` header for the client. */
  warn(message: string): void;
}

/**
 * The mutating phase's second pass: when a webhook with reinvocationPolicy IfNeeded should see a
 * later change, the chain runs every mutating plugin once more (each must be idempotent).
 */
export interface Reinvocation {
  /** True during the second pass. */
  readonly reinvoking: boolean;
  /** Asks for the second pass (ignored during it). */
  request(): void;
}

export interface AdmissionPlugin {
  readonly name: string;
  /** The mutating phase: may change `attributes.object`; throws an AdmissionError to refuse. */
  admit?(attributes: Attributes, reinvocation?: Reinvocation): void | Promise<void>;
  /** The validating phase: must not change anything; throws an AdmissionError to refuse. */
  validate?(attributes: Attributes): void | Promise<void>;
  /** Stops background work (informers, timers, connections). */
  close?(): void | Promise<void>;
}

/** In-process writes for plugins that keep objects (NamespaceAutoProvision, ResourceQuota status). */
export interface ObjectWriter {
  create(ref: ResourceRef, namespace: string | undefined, object: JsonObject): Promise<ApiObject>;
  /**
   * Rewrites an object with `transform` of the current one, compare-and-swapping on its revision
   * and retrying on a conflict; `subresource` writes through `status`.
   */
  update(
    ref: ResourceRef,
    namespace: string | undefined,
    name: string,
    transform: (current: JsonObject) => JsonObject,
    options?: { readonly subresource?: string },
  ): Promise<ApiObject>;
}

/** A served resource at one version, as policies and parameters name it. */
export interface ResourceInfo {
  readonly group: string;
  readonly version: string;
  readonly resource: string;
  readonly kind: string;
  readonly namespaced: boolean;
  /** The object's structural schema (OpenAPI v3 subset), when known; CEL type-checks against it. */
  readonly schema?: unknown;
}

/** Which resources are served, by resource or by kind (ValidatingAdmissionPolicy's paramKind). */
export interface ResourceCatalog {
  byResource(group: string, version: string, resource: string): ResourceInfo | undefined;
  byKind(group: string, version: string, kind: string): ResourceInfo | undefined;
}

/** What a plugin is built with. */
export interface PluginEnv {
  readonly naming: Naming;
  readonly objects: ObjectAccess;
  readonly resources: ResourceCatalog;
  readonly writer: ObjectWriter;
  readonly authorizer: Authorizer;
  /**
   * The plugin's configuration from `--admission-control-config-file` (the inline
   * `configuration` object, or the parsed file its `path` names); undefined when none is given.
   */
  readonly configuration: unknown;
  /** Server options some plugins read (`defaultNotReadyTolerationSeconds`, `redisUrl`, ...). */
  readonly options: PluginOptions;
  /** Where plugins register their metrics (a prom-client Registry). */
  readonly metrics: Registry;
  /** Aborted when the server stops. */
  readonly signal: AbortSignal;
}

export interface PluginOptions {
  readonly defaultNotReadyTolerationSeconds: number;
  readonly defaultUnreachableTolerationSeconds: number;
  /** `--redis-url`: shared state for replicas (EventRateLimit). */
  readonly redisUrl?: string;
  /** Feature gates by name (AdmissionWebhookMatchConditions, ValidatingAdmissionPolicy, ...). */
  readonly featureGates: Readonly<Record<string, boolean>>;
  /** The API server's own audiences, for the tokens ServiceAccount projects. */
  readonly serviceAccountIssuer?: string;
}

export type PluginFactory = (env: PluginEnv) => AdmissionPlugin | Promise<AdmissionPlugin>;

export interface PluginRegistration {
  readonly name: string;
  readonly factory: PluginFactory;
}
