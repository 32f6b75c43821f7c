// Reading a CustomResourceDefinition (apiextensions/v1, plain JSON) the way upstream's validation
// sees it after converting to its internal version: a schema, subresources or printer columns that
// are identical in every version move to the top level (`spec.validation`, `spec.subresources`,
// `spec.additionalPrinterColumns`), the webhook settings of a conversion move up to
// `spec.conversion.webhookClientConfig` / `conversionReviewVersions`, and `spec.version` is the
// first version's name. Error paths follow that view, so a single-version CRD reports schema
// problems under `spec.validation.openAPIV3Schema`, as upstream 1.27 does.
import { asArray, asObject, asString, type JsonObject, jsonEqual } from "../common/json.ts";

export interface VersionView {
  readonly raw: JsonObject;
  readonly name: string;
  readonly served: boolean;
  readonly storage: boolean;
  readonly deprecated: boolean;
  /** Absent when unset; a string (maybe empty) when set. */
  readonly deprecationWarning: string | undefined;
  /** The version's own `schema` (absent when it moved to the top level or was never set). */
  readonly schema: JsonObject | undefined;
  readonly subresources: JsonObject | undefined;
  readonly columns: readonly JsonObject[];
}

export interface ConversionView {
  readonly strategy: string;
  readonly webhookClientConfig: JsonObject | undefined;
  readonly conversionReviewVersions: readonly unknown[] | undefined;
}

export interface SpecView {
  readonly group: string;
  readonly names: JsonObject;
  readonly scope: string;
  readonly versions: readonly VersionView[];
  /** The first version's name (upstream's internal `spec.version`). */
  readonly version: string;
  /** `{openAPIV3Schema}` shared by every version. */
  readonly validation: JsonObject | undefined;
  readonly subresources: JsonObject | undefined;
  readonly columns: readonly JsonObject[];
  readonly conversion: ConversionView | undefined;
  readonly preserveUnknownFields: boolean;
}

function columnsOf(version: JsonObject): JsonObject[] {
  return asArray(version.additionalPrinterColumns).map((c) => asObject(c) ?? {});
}

// Go's semantic equality treats an empty list like a missing one.
function sameColumns(a: readonly JsonObject[], b: readonly JsonObject[]): boolean {
  return jsonEqual(a, b);
}

/** The internal view of a CRD's spec (see the module comment). */
export function specView(crd: JsonObject): SpecView {
  const spec = asObject(crd.spec) ?? {};
  const rawVersions = asArray(spec.versions).map((v) => asObject(v) ?? {});
  const first = rawVersions[0];
  let schemaShared = first !== undefined;
  let subresourcesShared = first !== undefined;
  let columnsShared = first !== undefined;
  for (const v of rawVersions) {
    if (first === undefined) break;
    if (schemaShared && !jsonEqual(v.schema ?? null, first.schema ?? null)) schemaShared = false;
    if (subresourcesShared && !jsonEqual(v.subresources ?? null, first.subresources ?? null))
      subresourcesShared = false;
    if (columnsShared && !sameColumns(columnsOf(v), columnsOf(first))) columnsShared = false;
  }
  const versions: VersionView[] = rawVersions.map((v) => ({
    raw: v,
    name: asString(v.name),
    served: v.served === true,
    storage: v.storage === true,
    deprecated: v.deprecated === true,
    deprecationWarning: typeof v.deprecationWarning === "string" ? v.deprecationWarning : undefined,
    schema: schemaShared ? undefined : asObject(v.schema),
    subresources: subresourcesShared ? undefined : asObject(v.subresources),
    columns: columnsShared ? [] : columnsOf(v),
  }));
  const conversion = asObject(spec.conversion);
  const webhook = conversion ? asObject(conversion.webhook) : undefined;
  return {
    group: asString(spec.group),
    names: asObject(spec.names) ?? {},
    scope: asString(spec.scope),
    versions,
    version: first ? asString(first.name) : "",
    validation: schemaShared && first ? asObject(first.schema) : undefined,
    subresources: subresourcesShared && first ? asObject(first.subresources) : undefined,
    columns: columnsShared && first ? columnsOf(first) : [],
    conversion: conversion
      ? {
          strategy: asString(conversion.strategy),
          webhookClientConfig: webhook ? asObject(webhook.clientConfig) : undefined,
          conversionReviewVersions:
            webhook && Array.isArray(webhook.conversionReviewVersions)
              ? webhook.conversionReviewVersions
              : undefined,
        }
      : undefined,
    preserveUnknownFields: spec.preserveUnknownFields === true,
  };
}

/** The subresources that apply to a version (its own, or the shared ones). */
export function subresourcesFor(view: SpecView, version: VersionView): JsonObject | undefined {
  return view.versions.some((v) => v.subresources !== undefined) ? version.subresources : view.subresources;
}

// ---------------------------------------------------------------------------------------------
// Reading the served shape straight from the v1 object (no internal view needed).

/** The v1 version entries of a CRD. */
export function versionsOf(crd: JsonObject): JsonObject[] {
  return asArray(asObject(crd.spec)?.versions).map((v) => asObject(v) ?? {});
}

/** A version's `schema.openAPIV3Schema`, if any. */
export function openAPISchemaOf(version: JsonObject): JsonObject | undefined {
  return asObject(asObject(version.schema)?.openAPIV3Schema);
}

/** The storage version's entry, or undefined when none is marked. */
export function storageVersionOf(crd: JsonObject): JsonObject | undefined {
  return versionsOf(crd).find((v) => v.storage === true);
}

// ---------------------------------------------------------------------------------------------
// Defaulting (upstream's v1 defaulters, applied when a request body is decoded).

/**
 * Fills what apiextensions/v1 defaults: `names.singular` (the kind in lower case), `names.listKind`
 * (`<kind>List`), `conversion` (`{strategy: None}`), a webhook service's port (443) and, when
 * empty, `status.storedVersions` (the storage version). Idempotent; mutates `crd`.
 */
export function defaultCustomResourceDefinition(crd: JsonObject): void {
  const spec = asObject(crd.spec);
  if (spec) {
    const names = asObject(spec.names);
    if (names) {
      const kind = asString(names.kind);
      if (asString(names.singular) === "") names.singular = kind.toLowerCase();
      if (asString(names.listKind) === "" && kind !== "") names.listKind = `${kind}List`;
    }
    if (spec.conversion === undefined || spec.conversion === null) spec.conversion = { strategy: "None" };
    const service = asObject(asObject(asObject(asObject(spec.conversion)?.webhook)?.clientConfig)?.service);
    if (service && (service.port === undefined || service.port === null)) service.port = 443;
  }
  const status = asObject(crd.status);
  if (asArray(status?.storedVersions).length === 0) {
    const storage = storageVersionOf(crd);
    if (storage) {
      const target = status ?? {};
      target.storedVersions = [asString(storage.name)];
      crd.status = target;
    }
  }
}
