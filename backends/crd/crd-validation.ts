// Validation of a CustomResourceDefinition (apiextensions/v1, plain JSON) with upstream 1.27's
// field paths, error types and texts. Paths follow upstream's internal view of the object
// (crd-view.ts): what every version shares is reported at the top level (`spec.validation...`,
// `spec.subresources...`, `spec.additionalPrinterColumns[i]...`), what differs per version under
// `spec.versions[i]`. Generic metadata checks are the registry's; `metadata.name` must in addition
// be `<plural>.<group>`.
import { costExceedsBudgetMessage, STATIC_ESTIMATED_CRD_COST_LIMIT } from "../cel/index.ts";
import { asArray, asObject, asString, type JsonObject, jsonEqual } from "../common/json.ts";
import type { Naming } from "../naming/naming.ts";
import { type FieldError, field } from "../registry/field-error.ts";
import { structuralErrors, unsupportedKeyword, validateOpenAPISchema } from "../schema/structural/index.ts";
import { isDNS1123Subdomain } from "../validation/names.ts";
import { celRuleErrors, defaultCelErrors } from "./crd-cel.ts";
import { type SpecView, specView, subresourcesFor, type VersionView } from "./crd-view.ts";
import { isDNS1035Label } from "./dns.ts";
import { validateWebhookService, validateWebhookURL } from "./webhook-url.ts";

const PRINTER_COLUMN_TYPES = ["boolean", "date", "integer", "number", "string"];
const PRINTER_COLUMN_FORMATS = ["byte", "date", "date-time", "double", "float", "int32", "int64", "password"];
const ACCEPTED_CONVERSION_REVIEW_VERSIONS = ["v1", "v1beta1"];
const FIELD_IMMUTABLE = "field is immutable";

interface Options {
  readonly requireRecognizedConversionReviewVersion: boolean;
  readonly requireImmutableNames: boolean;
  readonly requireOpenAPISchema: boolean;
}

const CREATE_OPTIONS: Options = {
  requireRecognizedConversionReviewVersion: true,
  requireImmutableNames: false,
  requireOpenAPISchema: true,
};

// ---------------------------------------------------------------------------------------------
// Names

/** Upstream's checks of a names block (spec.names or status.acceptedNames). */
export function validateNames(names: JsonObject, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const label = (name: string, value: string, lower: boolean): void => {
    if (value === "") return;
    const problems = isDNS1035Label(lower ? value.toLowerCase() : value);
    if (problems.length === 0) return;
    errs.push(
      field.invalid(
        `${path}.${name}`,
        value,
        lower ? `may have mixed case, but should otherwise match: ${problems.join(",")}` : problems.join(","),
      ),
    );
  };
  label("plural", asString(names.plural), false);
  label("singular", asString(names.singular), false);
  label("kind", asString(names.kind), true);
  label("listKind", asString(names.listKind), true);
  asArray(names.shortNames).forEach((s, i) => {
    const problems = isDNS1035Label(asString(s));
    if (problems.length > 0) errs.push(field.invalid(`${path}.shortNames[${i}]`, s, problems.join(",")));
  });
  const kind = asString(names.kind);
  if (kind !== "" && kind === asString(names.listKind))
    errs.push(field.invalid(`${path}.listKind`, kind, "kind and listKind may not be the same"));
  asArray(names.categories).forEach((c, i) => {
    const problems = isDNS1035Label(asString(c));
    if (problems.length > 0) errs.push(field.invalid(`${path}.categories[${i}]`, c, problems.join(",")));
  });
  return errs;
}

// ---------------------------------------------------------------------------------------------
// Versions, printer columns, subresources

function byteOffsets(s: string): number[] {
  const out: number[] = [];
  let offset = 0;
  for (const ch of s) {
    out.push(offset);
    offset += Buffer.byteLength(ch);
  }
  return out;
}

const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;
const LONE_SURROGATE = /\p{Cs}/u;

function deprecationWarningErrors(deprecated: boolean, warning: string | undefined): string[] {
  if (!deprecated && warning !== undefined) return ["can only be set for deprecated versions"];
  if (warning === undefined) return [];
  const errs: string[] = [];
  if (Buffer.byteLength(warning) > 256) errs.push("must be <= 256 characters long");
  if (warning.length === 0) errs.push("must not be an empty string");
  const offsets = byteOffsets(warning);
  let i = 0;
  for (const ch of warning) {
    // Go reads invalid UTF-8 (here: a lone surrogate) as U+FFFD, which is printable.
    if (!PRINTABLE.test(ch) && !LONE_SURROGATE.test(ch)) {
      errs.push(
        `must only contain printable UTF-8 characters; non-printable character found at index ${offsets[i]}`,
      );
      break;
    }
    i++;
  }
  if (LONE_SURROGATE.test(warning)) errs.push("must only contain printable UTF-8 characters");
  return errs;
}

function simpleJSONPathErrors(s: string, path: string): FieldError[] {
  if (s === "") return [field.invalid(path, s, "must not be empty")];
  if (!s.startsWith(".")) return [field.invalid(path, s, "must be a simple json path starting with .")];
  return [];
}

/** Upstream's checks of one additionalPrinterColumns entry. */
export function validatePrinterColumn(col: JsonObject, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (asString(col.name) === "") errs.push(field.required(`${path}.name`));
  const type = asString(col.type);
  const typeDetail = `must be one of ${PRINTER_COLUMN_TYPES.join(",")}`;
  if (type === "") errs.push(field.required(`${path}.type`, typeDetail));
  else if (!PRINTER_COLUMN_TYPES.includes(type)) errs.push(field.invalid(`${path}.type`, type, typeDetail));
  const format = asString(col.format);
  if (format !== "" && !PRINTER_COLUMN_FORMATS.includes(format))
    errs.push(field.invalid(`${path}.format`, format, `must be one of ${PRINTER_COLUMN_FORMATS.join(",")}`));
  const jsonPath = asString(col.jsonPath);
  if (jsonPath === "") errs.push(field.required(`${path}.JSONPath`));
  else errs.push(...simpleJSONPathErrors(jsonPath, `${path}.JSONPath`));
  return errs;
}

/** Upstream's checks of a subresources block (the scale paths). */
export function validateSubresources(subresources: JsonObject | undefined, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const scale = asObject(subresources?.scale);
  if (!scale) return errs;
  const replicasPath = (name: string, prefix: string, detail: string): void => {
    const at = `${path}.scale.${name}`;
    const value = asString(scale[name]);
    if (value === "") {
      errs.push(field.required(at));
      return;
    }
    const e = simpleJSONPathErrors(value, at);
    if (e.length > 0) errs.push(...e);
    else if (!value.startsWith(prefix)) errs.push(field.invalid(at, value, detail));
  };
  replicasPath("specReplicasPath", ".spec.", "should be a json path under .spec");
  replicasPath("statusReplicasPath", ".status.", "should be a json path under .status");
  const selector = asString(scale.labelSelectorPath);
  if (selector !== "") {
    const at = `${path}.scale.labelSelectorPath`;
    const e = simpleJSONPathErrors(selector, at);
    if (e.length > 0) errs.push(...e);
    else if (!selector.startsWith(".spec.") && !selector.startsWith(".status."))
      errs.push(field.invalid(at, selector, "should be a json path under either .spec or .status"));
  }
  return errs;
}

function hasStatus(subresources: JsonObject | undefined): boolean {
  return subresources !== undefined && subresources.status !== undefined && subresources.status !== null;
}

function hasAnyStatus(view: SpecView): boolean {
  return hasStatus(view.subresources) || view.versions.some((v) => hasStatus(v.subresources));
}

// ---------------------------------------------------------------------------------------------
// Schemas

/** Whether an error at `field` is at `path` or below it. */
function atOrBelow(errorField: string, path: string): boolean {
  if (!errorField.startsWith(path)) return false;
  const next = errorField.charAt(path.length);
  return next === "" || next === "." || next === "[";
}

const DEFAULT_ERROR = /\.default($|[.[])/;

/**
 * A `{openAPIV3Schema}` block at `path` (`spec.validation` or `spec.versions[i].schema`): the
 * structural and OpenAPI checks, then (when the schema is sound) its defaults under its rules and
 * the rules themselves: they compile, and their estimated cost fits the budgets.
 */
export function validateSchemaBlock(
  block: JsonObject | undefined,
  statusEnabled: boolean,
  path: string,
): FieldError[] {
  const schema = asObject(block?.openAPIV3Schema);
  if (!schema) return [];
  const schemaPath = `${path}.openAPIV3Schema`;
  const errs = validateOpenAPISchema(schema, schemaPath, { statusSubresource: statusEnabled });
  // Rules are only looked at on a structural schema with valid defaults (upstream has no CEL
  // types otherwise), and not where the schema itself has problems.
  if (unsupportedKeyword(schema) !== undefined || structuralErrors(schema, schemaPath).length > 0)
    return errs;
  if (errs.some((e) => DEFAULT_ERROR.test(e.field))) return errs;
  const defaults = defaultCelErrors(schema, schemaPath);
  if (defaults.length > 0) return [...errs, ...defaults];
  // The root checks of the block itself (status subresource, nullable) do not hold rules back.
  const schemaErrs = errs.filter(
    (e) =>
      !(e.detail ?? "").startsWith('only "object" is allowed') &&
      !(e.detail ?? "").startsWith("only [") &&
      e.detail !== "nullable cannot be true at the root",
  );
  const blocked = (nodePath: string): boolean => schemaErrs.some((e) => atOrBelow(e.field, nodePath));
  const { errors, total, mostExpensive } = celRuleErrors(schema, schemaPath, blocked);
  errs.push(...errors);
  if (total > STATIC_ESTIMATED_CRD_COST_LIMIT) {
    for (const expensive of mostExpensive)
      errs.push(
        field.forbidden(
          expensive.path,
          "contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema",
        ),
      );
    errs.push(
      field.forbidden(
        schemaPath,
        costExceedsBudgetMessage(
          "x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema",
          total,
          STATIC_ESTIMATED_CRD_COST_LIMIT,
        ),
      ),
    );
  }
  return errs;
}

function schemaHas(s: unknown, pred: (s: JsonObject) => boolean): boolean {
  const o = asObject(s);
  if (!o) return false;
  if (pred(o)) return true;
  const items = o.items;
  if (Array.isArray(items) ? items.some((i) => schemaHas(i, pred)) : schemaHas(items, pred)) return true;
  for (const name of ["allOf", "anyOf", "oneOf"])
    if (asArray(o[name]).some((b) => schemaHas(b, pred))) return true;
  if (schemaHas(o.not, pred) || schemaHas(o.additionalProperties, pred) || schemaHas(o.additionalItems, pred))
    return true;
  for (const name of ["properties", "patternProperties", "definitions", "dependencies"]) {
    const m = asObject(o[name]);
    if (m && Object.values(m).some((v) => schemaHas(v, pred))) return true;
  }
  return false;
}

function schemasOf(view: SpecView): unknown[] {
  return [view.validation?.openAPIV3Schema, ...view.versions.map((v) => v.schema?.openAPIV3Schema)];
}

function specHasDefaults(view: SpecView): boolean {
  return schemasOf(view).some((s) => schemaHas(s, (x) => x.default !== undefined && x.default !== null));
}

function allVersionsSpecifyOpenAPISchema(view: SpecView): boolean {
  if (asObject(view.validation?.openAPIV3Schema)) return true;
  return view.versions.every((v) => asObject(v.schema?.openAPIV3Schema) !== undefined);
}

// ---------------------------------------------------------------------------------------------
// Conversion

function validateConversionReviewVersions(
  versions: readonly unknown[] | undefined,
  requireRecognized: boolean,
  path: string,
): FieldError[] {
  const errs: FieldError[] = [];
  if (!versions || versions.length === 0) {
    errs.push(field.required(path));
    return errs;
  }
  const seen = new Set<string>();
  let accepted = false;
  versions.forEach((raw, i) => {
    const v = asString(raw);
    if (seen.has(v)) {
      errs.push(field.invalid(`${path}[${i}]`, v, "duplicate version"));
      return;
    }
    seen.add(v);
    for (const e of isDNS1035Label(v)) errs.push(field.invalid(`${path}[${i}]`, v, e));
    if (ACCEPTED_CONVERSION_REVIEW_VERSIONS.includes(v)) accepted = true;
  });
  if (requireRecognized && !accepted)
    errs.push(
      field.invalid(
        path,
        versions,
        `must include at least one of ${ACCEPTED_CONVERSION_REVIEW_VERSIONS.join(", ")}`,
      ),
    );
  return errs;
}

function validateConversion(view: SpecView, requireRecognized: boolean): FieldError[] {
  const errs: FieldError[] = [];
  const conversion = view.conversion;
  if (!conversion) return errs;
  const path = "spec.conversion";
  const strategy = conversion.strategy;
  if (strategy === "") errs.push(field.required(`${path}.strategy`));
  else if (strategy !== "None" && strategy !== "Webhook")
    errs.push(field.notSupported(`${path}.strategy`, strategy, ["None", "Webhook"]));
  const cc = conversion.webhookClientConfig;
  if (strategy === "Webhook") {
    if (!cc) {
      errs.push(field.required(`${path}.webhookClientConfig`, "required when strategy is set to Webhook"));
    } else {
      const url = typeof cc.url === "string" ? cc.url : undefined;
      const service = asObject(cc.service);
      if ((url === undefined) === (service === undefined))
        errs.push(field.required(`${path}.webhookClientConfig`, "exactly one of url or service is required"));
      else if (url !== undefined)
        errs.push(...validateWebhookURL(`${path}.webhookClientConfig.url`, url, true));
      else if (service)
        errs.push(
          ...validateWebhookService(
            `${path}.webhookClientConfig.service`,
            asString(service.namespace),
            asString(service.name),
            typeof service.path === "string" ? service.path : undefined,
            typeof service.port === "number" ? service.port : 443,
          ),
        );
    }
    errs.push(
      ...validateConversionReviewVersions(
        conversion.conversionReviewVersions,
        requireRecognized,
        `${path}.conversionReviewVersions`,
      ),
    );
  } else {
    if (cc)
      errs.push(
        field.forbidden(
          `${path}.webhookClientConfig`,
          "should not be set when strategy is not set to Webhook",
        ),
      );
    if ((conversion.conversionReviewVersions?.length ?? 0) > 0)
      errs.push(
        field.forbidden(
          `${path}.conversionReviewVersions`,
          "should not be set when strategy is not set to Webhook",
        ),
      );
  }
  return errs;
}

function hasValidConversionReviewVersionOrEmpty(versions: readonly unknown[] | undefined): boolean {
  if (!versions || versions.length === 0) return true;
  return versions.some((v) => ACCEPTED_CONVERSION_REVIEW_VERSIONS.includes(asString(v)));
}

// ---------------------------------------------------------------------------------------------
// The spec

function validateVersion(view: SpecView, version: VersionView, index: number): FieldError[] {
  const path = `spec.versions[${index}]`;
  const errs: FieldError[] = [];
  for (const e of deprecationWarningErrors(version.deprecated, version.deprecationWarning))
    errs.push(field.invalid(`${path}.deprecationWarning`, version.deprecationWarning, e));
  errs.push(
    ...validateSchemaBlock(version.schema, hasStatus(subresourcesFor(view, version)), `${path}.schema`),
  );
  errs.push(...validateSubresources(version.subresources, `${path}.subresources`));
  version.columns.forEach((c, i) => {
    errs.push(...validatePrinterColumn(c, `${path}.additionalPrinterColumns[${i}]`));
  });
  return errs;
}

function validateSpec(view: SpecView, rawVersions: unknown, opts: Options): FieldError[] {
  const errs: FieldError[] = [];
  if (view.group === "") errs.push(field.required("spec.group"));
  else {
    const problems = isDNS1123Subdomain(view.group);
    if (problems.length > 0) errs.push(field.invalid("spec.group", view.group, problems.join(",")));
    else if (view.group.split(".").length < 2)
      errs.push(field.invalid("spec.group", view.group, "should be a domain with at least one dot"));
  }
  if (view.scope === "") errs.push(field.required("spec.scope"));
  else if (view.scope !== "Cluster" && view.scope !== "Namespaced")
    errs.push(field.notSupported("spec.scope", view.scope, ["Cluster", "Namespaced"]));

  const shared = asObject(view.validation?.openAPIV3Schema) !== undefined;
  if (opts.requireOpenAPISchema) {
    if (!shared)
      view.versions.forEach((v, i) => {
        if (!asObject(v.schema?.openAPIV3Schema))
          errs.push(field.required(`spec.versions[${i}].schema.openAPIV3Schema`, "schemas are required"));
      });
  } else if (!view.preserveUnknownFields && !shared) {
    view.versions.forEach((v, i) => {
      if (v.served && !asObject(v.schema?.openAPIV3Schema))
        errs.push(
          field.required(
            `spec.versions[${i}].schema.openAPIV3Schema`,
            "because otherwise all fields are pruned",
          ),
        );
    });
  }
  if (view.preserveUnknownFields && specHasDefaults(view))
    errs.push(
      field.invalid(
        "spec.preserveUnknownFields",
        true,
        "must be false in order to use defaults in the schema",
      ),
    );

  let storageCount = 0;
  const names = new Set<string>();
  let unique = true;
  view.versions.forEach((v, i) => {
    if (v.storage) storageCount++;
    if (names.has(v.name)) unique = false;
    else names.add(v.name);
    const problems = isDNS1035Label(v.name);
    if (problems.length > 0) errs.push(field.invalid(`spec.versions[${i}].name`, v.name, problems.join(",")));
    errs.push(...validateVersion(view, v, i));
  });
  if (!unique) errs.push(field.invalid("spec.versions", rawVersions, "must contain unique version names"));
  if (storageCount !== 1)
    errs.push(
      field.invalid("spec.versions", rawVersions, "must have exactly one version marked as storage version"),
    );
  if (view.version !== "") {
    const problems = isDNS1035Label(view.version);
    if (problems.length > 0) errs.push(field.invalid("spec.version", view.version, problems.join(",")));
  }

  for (const name of ["plural", "singular", "kind", "listKind"])
    if (asString(view.names[name]) === "") errs.push(field.required(`spec.names.${name}`));
  errs.push(...validateNames(view.names, "spec.names"));
  errs.push(...validateSchemaBlock(view.validation, hasAnyStatus(view), "spec.validation"));
  errs.push(...validateSubresources(view.subresources, "spec.subresources"));
  view.columns.forEach((c, i) => {
    errs.push(...validatePrinterColumn(c, `spec.additionalPrinterColumns[${i}]`));
  });

  if (view.conversion && view.conversion.strategy !== "None" && view.preserveUnknownFields)
    errs.push(
      field.invalid(
        "spec.conversion.strategy",
        view.conversion.strategy,
        "must be None if spec.preserveUnknownFields is true",
      ),
    );
  errs.push(...validateConversion(view, opts.requireRecognizedConversionReviewVersion));
  return errs;
}

// ---------------------------------------------------------------------------------------------
// Status, stored versions, API approval, preserveUnknownFields

/** `status.acceptedNames` (the status subresource's own check). */
export function validateCustomResourceDefinitionStatus(crd: JsonObject): FieldError[] {
  const status = asObject(crd.status) ?? {};
  return validateNames(asObject(status.acceptedNames) ?? {}, "status.acceptedNames");
}

function validateStoredVersions(crd: JsonObject): FieldError[] {
  const path = "status.storedVersions";
  const stored = asArray(asObject(crd.status)?.storedVersions);
  if (stored.length === 0) return [field.invalid(path, stored, "must have at least one stored version")];
  const errs: FieldError[] = [];
  const remaining = new Map<string, number>();
  stored.forEach((v, i) => {
    remaining.set(asString(v), i);
  });
  for (const raw of asArray(asObject(crd.spec)?.versions)) {
    const v = asObject(raw) ?? {};
    const name = asString(v.name);
    const present = remaining.has(name);
    if (v.storage === true && !present)
      errs.push(field.invalid(path, v, `must have the storage version ${name}`));
    if (present) remaining.delete(name);
  }
  for (const [v, i] of [...remaining].sort((a, b) => a[1] - b[1]))
    errs.push(field.invalid(`${path}[${i}]`, v, "must appear in spec.versions"));
  return errs;
}

export type ApprovalState = "Invalid" | "Approved" | "Bypassed" | "Missing";

/** The annotation that records API review of a CRD in a protected group. */
export function apiApprovalAnnotation(naming: Naming): string {
  return `api-approved.${naming.labelDomain}`;
}

/** Groups of the product itself, whose CRDs need the approval annotation. */
export function isProtectedGroup(group: string, naming: Naming): boolean {
  return [naming.groupSuffix, naming.labelDomain].some((d) => group === d || group.endsWith(`.${d}`));
}

/** The approval state of a CRD's annotations, with upstream's reason text. */
export function apiApprovalState(
  annotations: JsonObject | undefined,
  naming: Naming,
): [ApprovalState, string] {
  const key = apiApprovalAnnotation(naming);
  const value = asString(annotations?.[key]);
  const see = "see https://github.com/kubernetes/enhancements/pull/1111";
  if (value === "")
    return ["Missing", `protected groups must have approval annotation ${JSON.stringify(key)}, ${see}`];
  if (value.startsWith("unapproved")) return ["Bypassed", `not approved: ${JSON.stringify(value)}`];
  if (/^[a-zA-Z][a-zA-Z0-9+.-]*:\/\/[^/?#@]*@?[^/?#]+/.test(value) && !/\s/.test(value))
    return ["Approved", `approved in ${value}`];
  return [
    "Invalid",
    `protected groups must have approval annotation ${JSON.stringify(key)} with either a URL or a reason starting with "unapproved", ${see}`,
  ];
}

function validateAPIApproval(crd: JsonObject, old: JsonObject | undefined, naming: Naming): FieldError[] {
  const group = asString(asObject(crd.spec)?.group);
  if (!isProtectedGroup(group, naming)) return [];
  const annotations = asObject(asObject(crd.metadata)?.annotations);
  const [state, reason] = apiApprovalState(annotations, naming);
  if (old) {
    const [oldState] = apiApprovalState(asObject(asObject(old.metadata)?.annotations), naming);
    if (oldState === state) return [];
  }
  const path = `metadata.annotations[${apiApprovalAnnotation(naming)}]`;
  switch (state) {
    case "Missing":
      return [field.required(path, reason)];
    case "Invalid":
      return [field.invalid(path, asString(annotations?.[apiApprovalAnnotation(naming)]), reason)];
    default:
      return [];
  }
}

function validatePreserveUnknownFields(crd: JsonObject, old: JsonObject | undefined): FieldError[] {
  if (old && asObject(old.spec)?.preserveUnknownFields === true) return [];
  if (asObject(crd.spec)?.preserveUnknownFields === true)
    return [
      field.invalid(
        "spec.preserveUnknownFields",
        true,
        "cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead",
      ),
    ];
  return [];
}

function validateName(crd: JsonObject): FieldError[] {
  const name = asString(asObject(crd.metadata)?.name);
  if (name === "") return [];
  const spec = asObject(crd.spec) ?? {};
  const required = `${asString(asObject(spec.names)?.plural)}.${asString(spec.group)}`;
  return name === required
    ? []
    : [field.invalid("metadata.name", name, 'must be spec.names.plural+"."+spec.group')];
}

// ---------------------------------------------------------------------------------------------
// Entry points

/** Everything upstream checks when a CRD is created (besides the generic metadata checks). */
export function validateCustomResourceDefinition(crd: JsonObject, naming: Naming): FieldError[] {
  return [
    ...validateName(crd),
    ...validateSpec(specView(crd), asObject(crd.spec)?.versions ?? null, CREATE_OPTIONS),
    ...validateCustomResourceDefinitionStatus(crd),
    ...validateStoredVersions(crd),
    ...validateAPIApproval(crd, undefined, naming),
    ...validatePreserveUnknownFields(crd, undefined),
  ];
}

function conditionTrue(crd: JsonObject, type: string): boolean {
  return asArray(asObject(crd.status)?.conditions).some((c) => {
    const o = asObject(c);
    return o !== undefined && o.type === type && o.status === "True";
  });
}

/** Everything upstream checks when a CRD is updated (besides the generic metadata checks). */
export function validateCustomResourceDefinitionUpdate(
  crd: JsonObject,
  old: JsonObject,
  naming: Naming,
): FieldError[] {
  const oldView = specView(old);
  const opts: Options = {
    requireRecognizedConversionReviewVersion:
      oldView.conversion === undefined ||
      hasValidConversionReviewVersionOrEmpty(oldView.conversion.conversionReviewVersions),
    requireImmutableNames: conditionTrue(old, "Established"),
    requireOpenAPISchema: allVersionsSpecifyOpenAPISchema(oldView),
  };
  const view = specView(crd);
  const errs = validateSpec(view, asObject(crd.spec)?.versions ?? null, opts);
  const immutable = (path: string, value: unknown, oldValue: unknown): void => {
    if (!jsonEqual(value, oldValue)) errs.push(field.invalid(path, value, FIELD_IMMUTABLE));
  };
  if (opts.requireImmutableNames) {
    immutable("spec.scope", view.scope, oldView.scope);
    immutable("spec.names.kind", asString(view.names.kind), asString(oldView.names.kind));
  }
  immutable("spec.group", view.group, oldView.group);
  immutable("spec.names.plural", asString(view.names.plural), asString(oldView.names.plural));
  return [
    ...errs,
    ...validateCustomResourceDefinitionStatus(crd),
    ...validateStoredVersions(crd),
    ...validateAPIApproval(crd, old, naming),
    ...validatePreserveUnknownFields(crd, old),
  ];
}
