// For plugin tests: a real control plane (built-in kinds over MemoryStorage) with the in-process
// object access and writer plugins get, and attributes built as the chain builds them.
import { Registry as MetricsRegistry } from "prom-client";
import { builtinKinds } from "../../backends/builtin/index.ts";
import { MemoryStorage } from "../../backends/memory/index.ts";
import { type Naming, naming as namingPreset } from "../../backends/naming/index.ts";
import type { JsonObject, Operation, PluginEnv, PluginOptions } from "../../plugins/admission/index.ts";
import { type Authorizer, alwaysAllow } from "../../plugins/authorization/index.ts";
import type { ObjectAccess } from "../../plugins/objects/index.ts";
import { startControlPlane } from "../control-plane.ts";
import { objectAccess } from "../object-access.ts";
import type { UserInfo } from "../pipeline/index.ts";
import type { ResourceTable } from "../routing/resources.ts";
import { admissionAttributes, type CollectedAttributes } from "./attributes.ts";
import { resourceCatalog } from "./resource-catalog.ts";
import { objectWriter } from "./writer.ts";

export interface AttributesSpec {
  readonly operation: Operation;
  /** Plural resource name, e.g. `pods`. */
  readonly resource: string;
  /** API group; "" (default) is core. */
  readonly group?: string;
  /** Request version; default the storage version. */
  readonly version?: string;
  readonly subresource?: string;
  readonly namespace?: string;
  readonly name?: string;
  readonly object?: JsonObject;
  readonly oldObject?: JsonObject;
  readonly options?: JsonObject;
  readonly dryRun?: boolean;
  /** Default: `admin` in `system:masters`. */
  readonly user?: UserInfo;
}

export interface AdmissionTest {
  readonly naming: Naming;
  readonly resources: ResourceTable;
  readonly objects: ObjectAccess;
  /** A plugin environment over this control plane. */
  env(options?: {
    readonly configuration?: unknown;
    readonly authorizer?: Authorizer;
    readonly options?: Partial<PluginOptions>;
  }): PluginEnv;
  /** Stores an object directly (no admission); returns it as stored. */
  create(
    resource: string,
    namespace: string | undefined,
    object: JsonObject,
    group?: string,
  ): Promise<JsonObject>;
  /** Deletes an object directly (no admission). */
  remove(resource: string, namespace: string | undefined, name: string, group?: string): Promise<void>;
  /** Reads an object as stored, or undefined. */
  get(
    resource: string,
    namespace: string | undefined,
    name: string,
    group?: string,
  ): Promise<JsonObject | undefined>;
  /** Attributes as the chain builds them, with the annotations and warnings plugins leave. */
  attributes(spec: AttributesSpec): CollectedAttributes;
  stop(): Promise<void>;
}

export const ADMIN: UserInfo = { username: "admin", uid: "", groups: ["system:masters"], extra: {} };

export async function startAdmissionTest(
  options: { readonly preset?: "cluster" | "kubernetes" } = {},
): Promise<AdmissionTest> {
  const naming = namingPreset(options.preset ?? "cluster");
  const abort = new AbortController();
  const fail = (err: unknown) => {
    if (!abort.signal.aborted) throw err;
  };
  const plane = await startControlPlane({
    storage: new MemoryStorage(),
    naming,
    kinds: builtinKinds(naming),
    historyWindowMs: 60_000,
    maxHistory: 10_000,
    watchListEnabled: false,
    onError: fail,
  });
  const objects = objectAccess(plane.resources, abort.signal, fail);
  const writer = objectWriter(plane.resources);
  const served = (resource: string, group = "") => {
    const s = plane.resources.byResource(group, resource);
    if (!s) throw new Error(`${resource}.${group} is not served`);
    return s;
  };
  const test: AdmissionTest = {
    naming,
    resources: plane.resources,
    objects,
    env: (o = {}) => ({
      naming,
      objects,
      resources: resourceCatalog(plane.resources),
      writer,
      authorizer: o.authorizer ?? alwaysAllow(),
      configuration: o.configuration,
      options: {
        defaultNotReadyTolerationSeconds: 300,
        defaultUnreachableTolerationSeconds: 300,
        featureGates: {},
        ...o.options,
      },
      metrics: new MetricsRegistry(),
      signal: abort.signal,
    }),
    async create(resource, namespace, object, group = "") {
      const { object: stored } = await served(resource, group).registry.create(
        namespace,
        structuredClone(object),
      );
      return stored;
    },
    async remove(resource, namespace, name, group = "") {
      await served(resource, group).registry.delete(namespace, name);
    },
    async get(resource, namespace, name, group = "") {
      const found = await objects.get({ group, resource }, namespace, name);
      return found as JsonObject | undefined;
    },
    attributes(spec) {
      const s = served(spec.resource, spec.group ?? "");
      const meta = (spec.object?.metadata ?? spec.oldObject?.metadata ?? {}) as {
        name?: string;
        namespace?: string;
      };
      return admissionAttributes({
        operation: spec.operation,
        served: s,
        version: spec.version ?? s.schema.versions.find((v) => v.storage)?.name ?? "v1",
        subresource: spec.subresource,
        name: spec.name ?? meta.name ?? "",
        namespace: spec.namespace ?? meta.namespace,
        object: spec.object,
        oldObject: spec.oldObject,
        options: spec.options,
        dryRun: spec.dryRun,
        user: spec.user ?? ADMIN,
      });
    },
    async stop() {
      abort.abort();
      await plane.stop();
    },
  };
  return test;
}
