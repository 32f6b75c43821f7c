// The served resource of a CustomResourceDefinition: its ResourceSchema (names from the accepted
// names, versions with their schemas, scope, subresources, printer columns, conversion) and the
// strategy that applies its schema to request bodies, as upstream's custom resource handler and
// registry do:
// - decoding: metadata must decode as ObjectMeta (a 400 otherwise); everything else is
//   unstructured, so a value of the wrong type is a schema error (422), not a decode error;
// - pruning: unknown fields go (except below x-kubernetes-preserve-unknown-fields), root metadata
//   keeps ObjectMeta's fields, non-nullable nulls without a default are dropped;
// - defaulting by the schema's defaults;
// - validation: apiVersion/kind, the OpenAPI schema, embedded resources, list types, the scale
//   paths, then the x-kubernetes-validations rules (skipped, with upstream's notice, when the
//   object already has errors that make rules meaningless), `oldSelf` on updates, under the
//   runtime cost budget;
// - status subresource: the main resource keeps the stored status, status writes keep the rest;
// - generation: 1 on create, +1 whenever anything but metadata changes.
// Schemas and rules are compiled once per version, on first use.

import { compileGoForm, type GoForm } from "../builtin/go-form.ts";
import { ALL_VERBS, type BuiltinKind } from "../builtin/kind.ts";
import { builtinCatalog } from "../catalog/index.ts";
import { RUNTIME_CEL_COST_BUDGET } from "../cel/index.ts";
import { asArray, asObject, asString, cloneJson, type JsonObject, jsonEqual } from "../common/json.ts";
import type { Naming } from "../naming/naming.ts";
import type { FieldError } from "../registry/field-error.ts";
import type { Strategy, TypedSchema } from "../registry/strategy.ts";
import { pruneUnknownFields } from "../registry/unknown-fields.ts";
import type { ResourceSchema, ResourceVersion } from "../schema/resource-schema.ts";
import {
  type CompiledSchema,
  compileSchema,
  objectMetaDecodeError,
  type StructuralSchema,
} from "../schema/structural/index.ts";
import { OBJECT_META_FIELDS } from "../validation/object-meta.ts";
import { type CelValidator, celValidator, runCelValidator } from "./cel-validator.ts";
import { type ConversionCallouts, ConversionError, WebhookConverter } from "./conversion-webhook.ts";
import { openAPISchemaOf, versionsOf } from "./crd-view.ts";
import { printerColumns } from "./printer-columns.ts";
import { type ScaleSubresource, validateScaleSpec, validateScaleStatus } from "./scale.ts";

let metaForm: GoForm | undefined;
function objectMetaForm(): GoForm {
  metaForm ??= compileGoForm(builtinCatalog(), "meta/v1.ObjectMeta");
  return metaForm;
}

export interface CustomResourceKind extends BuiltinKind {
  /** The scale subresource's paths, when the storage version declares one (see scale.ts). */
  readonly scale?: ScaleSubresource;
  /**
   * `None` or `Webhook`; with `Webhook`, `schema.convertMany` calls the webhook and
   * `schema.convert` serves only the conversions it made recently (see RECENT_CONVERSIONS).
   */
  readonly conversionStrategy: string;
}

/**
 * Webhook conversions kept for the synchronous `convert` (steps that cannot wait for a call, such
 * as admission plugins reading the object at another version): the most recent ones, by input.
 */
const RECENT_CONVERSIONS = 256;
/** Larger inputs are not kept (their key alone would be large). */
const RECENT_CONVERSION_CHARS = 256 * 1024;

const BLOCKING = new Set<FieldError["type"]>([
  "FieldValueRequired",
  "FieldValueTooLong",
  "FieldValueTooMany",
  "FieldValueTypeInvalid",
]);

const RULES_NOT_CHECKED: FieldError = {
  field: "<nil>",
  type: "FieldValueInvalid",
  value: "null",
  detail:
    "some validation rules were not checked because the object was invalid; correct the existing errors to complete validation",
};

// ---------------------------------------------------------------------------------------------
// Versions

const KUBE_VERSION = /^v(\d+)(?:(alpha|beta)(\d+))?$/;

function parseKubeVersion(v: string): [number, number, number] | undefined {
  const m = KUBE_VERSION.exec(v);
  if (!m) return undefined;
  const type = m[2] === "alpha" ? 0 : m[2] === "beta" ? 1 : 2;
  return [type, Number(m[1]), m[3] === undefined ? 0 : Number(m[3])];
}

/** Upstream's kube-aware version order: positive when `a` sorts after (is newer than) `b`. */
export function compareKubeAwareVersions(a: string, b: string): number {
  if (a === b) return 0;
  const pa = parseKubeVersion(a);
  const pb = parseKubeVersion(b);
  if (!pa && !pb) return b < a ? -1 : b > a ? 1 : 0;
  if (!pa) return -1;
  if (!pb) return 1;
  if (pa[0] !== pb[0]) return pa[0] - pb[0];
  if (pa[1] !== pb[1]) return pa[1] - pb[1];
  return pa[2] - pb[2];
}

/** Upstream's warning for a deprecated CRD version without its own deprecationWarning. */
export function defaultDeprecationWarning(version: string, crd: JsonObject): string {
  const spec = asObject(crd.spec) ?? {};
  const group = asString(spec.group);
  const kind = asString(asObject(spec.names)?.kind);
  const msg = `${group}/${version} ${kind} is deprecated`;
  const newer = versionsOf(crd)
    .filter(
      (v) =>
        v.served === true && v.deprecated !== true && compareKubeAwareVersions(version, asString(v.name)) < 0,
    )
    .map((v) => asString(v.name))
    .sort((a, b) => compareKubeAwareVersions(b, a));
  return newer.length === 0 ? msg : `${msg}; use ${group}/${newer[0]} ${kind}`;
}

interface VersionRuntime {
  readonly name: string;
  readonly compiled: CompiledSchema | undefined;
  readonly cel: CelValidator | undefined;
}

// ---------------------------------------------------------------------------------------------
// Helpers

function metadata(object: JsonObject): JsonObject {
  const m = asObject(object.metadata);
  if (m) return m;
  const created: JsonObject = {};
  object.metadata = created;
  return created;
}

function withoutMetadata(object: JsonObject): JsonObject {
  const { metadata: _m, ...rest } = object;
  return rest;
}

function scaleOf(version: JsonObject | undefined): ScaleSubresource | undefined {
  const scale = asObject(asObject(version?.subresources)?.scale);
  if (!scale) return undefined;
  const selector = scale.labelSelectorPath;
  return {
    specReplicasPath: asString(scale.specReplicasPath),
    statusReplicasPath: asString(scale.statusReplicasPath),
    ...(typeof selector === "string" ? { labelSelectorPath: selector } : {}),
  };
}

// ---------------------------------------------------------------------------------------------
// The kind

/**
 * The served resource of `crd` (a stored, valid CustomResourceDefinition): names come from
 * `status.acceptedNames` where set (as upstream serves them), else from `spec.names`.
 * Subresources, printer columns and scale paths are the storage version's.
 */
export function customResourceKind(
  naming: Naming,
  crd: JsonObject,
  callouts?: ConversionCallouts,
): CustomResourceKind {
  const spec = asObject(crd.spec) ?? {};
  const group = asString(spec.group);
  const specNames = asObject(spec.names) ?? {};
  // Upstream serves the accepted names; before the naming controller has run, the requested ones.
  const accepted = asObject(asObject(crd.status)?.acceptedNames) ?? {};
  const names = asString(accepted.plural) !== "" ? accepted : specNames;
  const name = (key: string): string => asString(names[key]) || asString(specNames[key]);
  const list = (key: string): string[] => asArray(names[key]).map(asString);
  const kind = name("kind");
  const preserveUnknownFields = spec.preserveUnknownFields === true;
  const conversionStrategy = asString(asObject(spec.conversion)?.strategy) || "None";

  const rawVersions = versionsOf(crd);
  const storage = rawVersions.find((v) => v.storage === true) ?? rawVersions[0];
  const storageName = asString(storage?.name);
  const subresources = asObject(storage?.subresources);
  const hasStatus = subresources?.status !== undefined && subresources.status !== null;
  const scale = scaleOf(storage);

  const versions: ResourceVersion[] = rawVersions.map((v) => {
    const vName = asString(v.name);
    const schema = openAPISchemaOf(v);
    const deprecated = v.deprecated === true;
    return {
      name: vName,
      served: v.served === true,
      storage: v.storage === true,
      ...(deprecated
        ? {
            deprecated: true,
            deprecationWarning:
              typeof v.deprecationWarning === "string"
                ? v.deprecationWarning
                : defaultDeprecationWarning(vName, crd),
          }
        : {}),
      ...(schema ? { schema: schema as StructuralSchema } : {}),
    };
  });

  // Compiled on first use, once per version.
  const runtimes = new Map<string, VersionRuntime>();
  const runtime = (versionName: string): VersionRuntime => {
    let r = runtimes.get(versionName);
    if (!r) {
      const entry = rawVersions.find((v) => asString(v.name) === versionName);
      const schema = entry ? openAPISchemaOf(entry) : undefined;
      r = {
        name: versionName,
        compiled: schema ? compileSchema(schema as StructuralSchema) : undefined,
        cel: schema ? celValidator(schema) : undefined,
      };
      runtimes.set(versionName, r);
    }
    return r;
  };
  const versionNames = new Set(rawVersions.map((v) => asString(v.name)));
  /** The version an object is written in (its apiVersion), else the storage version. */
  const runtimeOf = (object: JsonObject): VersionRuntime => {
    const apiVersion = asString(object.apiVersion);
    const slash = apiVersion.lastIndexOf("/");
    const v = slash >= 0 && apiVersion.slice(0, slash) === group ? apiVersion.slice(slash + 1) : "";
    return runtime(versionNames.has(v) ? v : storageName);
  };

  const typeMetaErrors = (object: JsonObject, version: string): FieldError[] => {
    const errs: FieldError[] = [];
    const k = object.kind;
    if (k !== kind)
      errs.push({ field: "kind", type: "FieldValueInvalid", value: k ?? "", detail: `must be ${kind}` });
    const want = `${group}/${version}`;
    const av = object.apiVersion;
    if (av !== want)
      errs.push({
        field: "apiVersion",
        type: "FieldValueInvalid",
        value: av ?? "",
        detail: `must be ${want}`,
      });
    return errs;
  };

  const validateObject = (object: JsonObject, old: JsonObject | undefined): FieldError[] => {
    const r = runtimeOf(object);
    const typeMeta = typeMetaErrors(object, r.name);
    if (typeMeta.length > 0) return typeMeta;
    const errs: FieldError[] = r.compiled
      ? old
        ? r.compiled.validateUpdate(object, old)
        : r.compiled.validate(object)
      : [];
    if (scale) errs.push(...validateScaleStatus(object, scale));
    if (r.cel) {
      if (errs.some((e) => BLOCKING.has(e.type))) errs.push(RULES_NOT_CHECKED);
      else runCelValidator(r.cel, "", object, old, RUNTIME_CEL_COST_BUDGET, errs);
    }
    return errs;
  };

  const typed: TypedSchema = {
    decodeError: (object) =>
      object.metadata === undefined ? undefined : objectMetaDecodeError(object.metadata),
    prune(object) {
      const meta = asObject(object.metadata);
      const unknown =
        meta && objectMetaDecodeError(meta) === undefined
          ? pruneUnknownFields(meta, OBJECT_META_FIELDS, "metadata")
          : [];
      const compiled = runtimeOf(object).compiled;
      if (preserveUnknownFields || !compiled) return unknown;
      const pruned = compiled.prune(object);
      compiled.dropNulls(object);
      return [...unknown, ...pruned];
    },
    default(object) {
      runtimeOf(object).compiled?.applyDefaults(object);
      // Upstream reads the metadata into its ObjectMeta and writes it back: empty maps and lists
      // go as for built-in kinds. The rest stays as sent.
      objectMetaForm().encoded(object.metadata);
    },
    validate: (object) => validateObject(object, undefined),
    validateUpdate: (object, old) => validateObject(object, old),
  };

  const main: Strategy = {
    typed,
    prepareForCreate(object) {
      if (hasStatus) delete object.status;
      metadata(object).generation = 1;
    },
    prepareForUpdate(object, old) {
      if (hasStatus) {
        if (old.status !== undefined) object.status = cloneJson(old.status);
        else delete object.status;
      }
      const oldGeneration = asObject(old.metadata)?.generation;
      metadata(object).generation =
        (typeof oldGeneration === "number" ? oldGeneration : 0) +
        (jsonEqual(withoutMetadata(object), withoutMetadata(old)) ? 0 : 1);
    },
    ...(scale ? { validate: (object: JsonObject) => validateScaleSpec(object, scale) } : {}),
    tracksGeneration: false,
    nameRule: "dns-subdomain",
  };

  const status: Strategy = {
    prepareForUpdate(object, old) {
      // Only status is taken from the request (and managedFields, which the field manager owns).
      const newStatus = object.status;
      const m = metadata(object);
      const managedFields = m.managedFields;
      for (const key of Object.keys(object)) if (key !== "metadata") delete object[key];
      for (const [key, value] of Object.entries(old)) if (key !== "metadata") object[key] = cloneJson(value);
      for (const key of Object.keys(m)) delete m[key];
      Object.assign(m, cloneJson(asObject(old.metadata) ?? {}));
      if (managedFields === undefined) delete m.managedFields;
      else m.managedFields = managedFields;
      if (newStatus === undefined) delete object.status;
      else object.status = newStatus;
    },
    tracksGeneration: false,
  };

  const webhook = conversionStrategy === "Webhook" ? new WebhookConverter(crd, naming, callouts) : undefined;
  const recent = new Map<string, string>();
  const recentKey = (object: JsonObject, toVersion: string): string | undefined => {
    const json = JSON.stringify(object);
    return json.length > RECENT_CONVERSION_CHARS ? undefined : `${toVersion}\n${json}`;
  };
  const remember = (object: JsonObject, toVersion: string, converted: JsonObject): void => {
    const key = recentKey(object, toVersion);
    if (key === undefined) return;
    recent.delete(key);
    recent.set(key, JSON.stringify(converted));
    if (recent.size > RECENT_CONVERSIONS) recent.delete(recent.keys().next().value as string);
  };

  const convert = (object: JsonObject, toVersion: string): JsonObject => {
    const target = `${group}/${toVersion}`;
    if (object.apiVersion === target) return object;
    if (webhook) {
      const key = recentKey(object, toVersion);
      const known = key === undefined ? undefined : recent.get(key);
      if (known !== undefined) return JSON.parse(known) as JsonObject;
      throw new ConversionError(
        `conversion webhook for ${asString(object.apiVersion)}, Kind=${kind} failed: the conversion is needed in a step that cannot call the webhook`,
      );
    }
    const out = cloneJson(object);
    out.apiVersion = target;
    // The result holds only what the target version's schema knows (upstream coerces it).
    const compiled = runtime(toVersion).compiled;
    if (!preserveUnknownFields && compiled) {
      compiled.prune(out);
      compiled.dropNulls(out);
    }
    return out;
  };

  const convertMany = async (
    objects: readonly JsonObject[],
    toVersion: string,
    listKind?: string,
  ): Promise<JsonObject[]> => {
    const out = await (webhook as WebhookConverter).convert(objects, toVersion, listKind);
    const compiled = preserveUnknownFields ? undefined : runtime(toVersion).compiled;
    objects.forEach((o, i) => {
      const converted = out[i] as JsonObject;
      if (o === converted) return;
      // What the webhook returns holds only what the target version's schema knows, as upstream
      // coerces it.
      compiled?.prune(converted);
      compiled?.dropNulls(converted);
      remember(o, toVersion, converted);
    });
    return out;
  };

  const subresourceNames = [...(hasStatus ? ["status"] : []), ...(scale ? ["scale"] : [])];
  const schema: ResourceSchema = {
    group,
    versions,
    plural: name("plural"),
    singular: name("singular") || kind.toLowerCase(),
    kind,
    listKind: name("listKind") || `${kind}List`,
    shortNames: list("shortNames"),
    categories: list("categories"),
    namespaced: asString(spec.scope) !== "Cluster",
    verbs: ALL_VERBS,
    subresources: subresourceNames,
    allowCreateOnUpdate: false,
    tableColumns: printerColumns(asArray(storage?.additionalPrinterColumns).map((c) => asObject(c) ?? {})),
    convert,
    ...(webhook ? { convertMany } : {}),
  };

  return {
    schema,
    strategy: main,
    ...(hasStatus ? { subresourceStrategies: { status } } : {}),
    ...(scale ? { scale } : {}),
    conversionStrategy,
  };
}
