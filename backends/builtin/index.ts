// The built-in kinds the gateway serves itself, spelled with the naming preset's domain, each with
// its schema from the built-in catalog.
import { builtinCatalog, type Catalog } from "../catalog/index.ts";
import type { JsonObject } from "../common/json.ts";
import { crdStrategy } from "../crd/index.ts";
import type { Naming } from "../naming/naming.ts";
import { resourcePrefix } from "../schema/index.ts";
import type { StructuralSchema } from "../schema/structural/index.ts";
import { withApiServiceLifecycle } from "./apiservice.ts";
import {
  CATALOG_KINDS,
  type CatalogKindOptions,
  catalogKind,
  readInGoForm,
  withCatalogSchema,
} from "./catalog-kinds.ts";
import { certificateSigningRequestKind } from "./certificatesigningrequest.ts";
import { builtinColumns } from "./columns/index.ts";
import { configMapKind } from "./configmap.ts";
import { eventsConversion } from "./conversion/index.ts";
import { builtinDefaulterFor } from "./defaults/index.ts";
import { eventKind } from "./event.ts";
import { type FeatureGates, matchConditionsDropper } from "./gated-fields.ts";
import type { BuiltinKind } from "./kind.ts";
import { namespaceKind } from "./namespace.ts";
import { nodeKind } from "./node.ts";
import { podKind } from "./pod.ts";
import { rbacKinds } from "./rbac.ts";
import { secretKind } from "./secret.ts";
import { ServiceAllocator, type ServiceRanges } from "./service-allocation.ts";
import { serviceAccountKind } from "./serviceaccount.ts";
import { kindSchema } from "./typed.ts";
import { kindValidators, prepareServiceForCreate, prepareServiceForUpdate } from "./validation/index.ts";

export {
  isLocalAPIService,
  LOCAL_AVAILABLE,
  setAPIServiceCondition,
} from "./apiservice.ts";
export { humanDuration, timestampAge } from "./human-duration.ts";
export type { BuiltinKind } from "./kind.ts";
export { NAMESPACE_ACTIVE, NAMESPACE_TERMINATING } from "./namespace.ts";
export { SECRET_TYPE_OPAQUE, secretTypes } from "./secret.ts";
export {
  DEFAULT_REPAIR_INTERVAL_MS,
  DEFAULT_SERVICE_RANGES,
  NODE_PORT_RECORD,
  parseCidr,
  parseNodePortRange,
  SERVICE_IP_RECORD,
  ServiceAllocator,
  ServiceRangeError,
  type ServiceRanges,
} from "./service-allocation.ts";

function catalogOptions(naming: Naming): CatalogKindOptions {
  const columns = builtinColumns(naming);
  const catalog = builtinCatalog();
  const rules = kindValidators(naming);
  return {
    catalog,
    rules: (typeId) => rules[typeId],
    defaulter: builtinDefaulterFor(catalog, naming),
    columns: (entry) => columns(entry.group, entry.plural),
  };
}

/** ObjectMeta's structural schema, for walks over objects whose own schema leaves metadata open. */
export function objectMetaSchema(): StructuralSchema {
  return kindSchema(builtinCatalog(), "meta/v1.ObjectMeta");
}

/** autoscaling/v1 Scale's structural schema, for patches and applies of scale subresources. */
export function scaleSchema(): StructuralSchema {
  return kindSchema(builtinCatalog(), "autoscaling/v1.Scale");
}

export interface BuiltinSettings {
  /** Where Services get their cluster IPs and node ports. */
  readonly serviceRanges?: ServiceRanges;
  /** How often the Service allocation repair pass runs (default 3 minutes, as upstream). */
  readonly serviceRepairIntervalMs?: number;
  /** Findings of the Service allocation repair pass, for the log. */
  readonly report?: (message: string, err?: unknown) => void;
  /**
   * The server's feature gates: fields of a gate that is off are dropped on write (gated-fields.ts).
   * Absent: nothing is dropped.
   */
  readonly featureGates?: FeatureGates;
}

/** The kind with `prepare` run after its own preparation on create (`old` undefined) and update. */
function preparedAfter(
  kind: BuiltinKind,
  prepare: (object: JsonObject, old: JsonObject | undefined) => void,
): BuiltinKind {
  const { prepareForCreate, prepareForUpdate } = kind.strategy;
  return {
    ...kind,
    strategy: {
      ...kind.strategy,
      prepareForCreate(object) {
        prepareForCreate?.(object);
        prepare(object, undefined);
      },
      prepareForUpdate(object, old) {
        prepareForUpdate?.(object, old);
        prepare(object, old);
      },
    },
  };
}

/** A Service's strategy with cluster IPs and node ports taken in the store on write. */
function withServiceAllocation(kind: BuiltinKind, settings: BuiltinSettings): BuiltinKind {
  const allocator = new ServiceAllocator(settings.serviceRanges, {
    servicesPrefix: resourcePrefix(kind.schema),
    ...(settings.serviceRepairIntervalMs !== undefined
      ? { repairIntervalMs: settings.serviceRepairIntervalMs }
      : {}),
    ...(settings.report ? { report: settings.report } : {}),
  });
  const prepared = preparedAfter(kind, (object, old) =>
    old ? prepareServiceForUpdate(object, old) : prepareServiceForCreate(object),
  );
  return {
    ...prepared,
    strategy: {
      ...prepared.strategy,
      allocate: (object, old, storage) => allocator.allocate(storage, object, old),
      afterDelete: (object, storage) => allocator.release(storage, object),
    },
  };
}

/** The CustomResourceDefinition kind with its own lifecycle: validation, status, cleanup. */
function withCrdLifecycle(kind: BuiltinKind, naming: Naming): BuiltinKind {
  const { main, status } = crdStrategy(naming, { cleanupFinalizer: true });
  return {
    ...kind,
    strategy: { ...kind.strategy, ...main },
    subresourceStrategies: { ...kind.subresourceStrategies, status },
  };
}

/**
 * events.<domain>/v1 Event: the core Events seen through the events group's field names (the
 * same stored objects, rules and columns; converted on the way in and out).
 */
function eventsGroupKind(naming: Naming, core: BuiltinKind, catalog: Catalog): BuiltinKind {
  const catalogType = "events/v1.Event";
  return {
    ...core,
    schema: {
      ...core.schema,
      group: naming.group("events"),
      storedAs: { group: core.schema.group, plural: core.schema.plural },
      versions: [
        { name: "v1", served: true, storage: false, schema: kindSchema(catalog, catalogType), catalogType },
        // The stored form is core/v1's; it is never served under this group.
        { name: "core", served: false, storage: true },
      ],
      convert: readInGoForm(
        catalog,
        { pkg: "core/v1", kind: "Event", otherVersions: [{ pkg: "events/v1" }] },
        eventsConversion(naming),
      ),
    },
  };
}

/** Every built-in stored kind but RBAC's (see `builtinRbacKinds`). */
export function builtinKinds(naming: Naming, settings: BuiltinSettings = {}): BuiltinKind[] {
  const options = catalogOptions(naming);
  const dropMatchConditions = settings.featureGates && matchConditionsDropper(settings.featureGates);
  const own: [BuiltinKind, string][] = [
    [namespaceKind(naming), "core/v1.Namespace"],
    [configMapKind(naming), "core/v1.ConfigMap"],
    [secretKind(naming), "core/v1.Secret"],
    [serviceAccountKind(naming), "core/v1.ServiceAccount"],
    [eventKind(naming), "core/v1.Event"],
    [podKind(naming), "core/v1.Pod"],
    [nodeKind(naming), "core/v1.Node"],
    [certificateSigningRequestKind(naming), "certificates/v1.CertificateSigningRequest"],
  ];
  const typedOwn = own.map(([kind, typeId]) => withCatalogSchema(kind, typeId, options));
  const coreEvents = typedOwn.find((k) => k.schema.group === "" && k.schema.plural === "events");
  return [
    ...typedOwn,
    ...(coreEvents ? [eventsGroupKind(naming, coreEvents, options.catalog)] : []),
    ...CATALOG_KINDS.map((entry) => {
      const kind = catalogKind(naming, entry, options);
      if (entry.group === "" && entry.plural === "services") {
        // The proxy subresource is served by the gateway's proxy handler.
        const proxied = {
          ...kind,
          schema: { ...kind.schema, subresources: [...kind.schema.subresources, "proxy"] },
        };
        return withServiceAllocation(proxied, settings);
      }
      if (entry.group === "apiextensions" && entry.plural === "customresourcedefinitions") {
        return withCrdLifecycle(kind, naming);
      }
      if (entry.group === "apiregistration" && entry.plural === "apiservices") {
        return withApiServiceLifecycle(kind);
      }
      if (
        dropMatchConditions &&
        entry.group === "admissionregistration" &&
        entry.plural.endsWith("webhookconfigurations")
      ) {
        return preparedAfter(kind, dropMatchConditions);
      }
      return kind;
    }),
  ];
}

/** The four RBAC kinds, with their schemas. */
export function builtinRbacKinds(naming: Naming): BuiltinKind[] {
  const options = catalogOptions(naming);
  return rbacKinds(naming).map((kind) => withCatalogSchema(kind, `rbac/v1.${kind.schema.kind}`, options));
}
