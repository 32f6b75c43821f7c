// Message and kind descriptors generated from the built-in catalog, the one source of the wire
// facts (field names, numbers, types, repeated/map) and of the Go facts the JSON form depends on
// (`pointer`, `omitEmpty`, `inline`): every catalog type becomes a message named as upstream's
// (`k8s.io.api.apps.v1.Deployment`), and every kind the gateway serves a kind descriptor, with a
// List message for the stored kinds. The catalog's special scalars (`time`, `quantity`, ...) map
// to the hand-written messages in descriptors.ts.
import { CATALOG_KINDS } from "../../backends/builtin/catalog-kinds.ts";
import {
  builtinCatalog,
  type Catalog,
  type ScalarType as CatalogScalar,
  type ParsedRef,
  packageGroup,
  parseRef,
  type ResolvedType,
} from "../../backends/catalog/index.ts";
import {
  type FieldDescriptor,
  type FieldType,
  field,
  INTSTR,
  type KindDescriptor,
  list,
  META_V1,
  type MessageDescriptor,
  MICRO_TIME,
  RESOURCE,
  RUNTIME,
  type SpecialJson,
  TIME,
} from "./descriptor-model.ts";

/** The catalog's special scalars: the upstream message each is on the wire. */
const SCALAR_MESSAGES: Partial<Record<CatalogScalar, string>> = {
  time: TIME,
  microTime: MICRO_TIME,
  fieldsV1: `${META_V1}.FieldsV1`,
  quantity: `${RESOURCE}.Quantity`,
  intOrString: `${INTSTR}.IntOrString`,
  rawExtension: `${RUNTIME}.RawExtension`,
};

/** Catalog types whose JSON is not an object of their fields (`jsonAs`), by their JSON form. */
const JSON_AS: Readonly<Record<string, SpecialJson>> = {
  "apiextensions/v1.JSON": "json",
  "apiextensions/v1.JSONSchemaPropsOrArray": "schemaOrArray",
  "apiextensions/v1.JSONSchemaPropsOrBool": "schemaOrBool",
  "apiextensions/v1.JSONSchemaPropsOrStringArray": "schemaOrStringArray",
};

function messageName(type: ResolvedType): string {
  return `${type.protoPackage}.${type.name}`;
}

/** The wire type of one element (a list's item, a map's value, or a singular field). */
function elementType(catalog: Catalog, ref: ParsedRef, where: string): FieldType {
  switch (ref.kind) {
    case "scalar":
      switch (ref.scalar) {
        case "string":
        case "bool":
        case "int32":
        case "int64":
        case "double":
          return { kind: "scalar", scalar: ref.scalar };
        case "bytes":
          return { kind: "bytes" };
        default: {
          const message = SCALAR_MESSAGES[ref.scalar];
          if (!message) throw new Error(`${where}: no Protobuf message for the catalog scalar ${ref.scalar}`);
          return { kind: "message", message };
        }
      }
    case "type":
      return { kind: "message", message: messageName(catalog.mustType(ref.id)) };
    default:
      throw new Error(`${where}: nested ${ref.kind} has no Protobuf form`);
  }
}

function fieldDescriptor(catalog: Catalog, type: ResolvedType, key: string): FieldDescriptor {
  const spec = type.spec.fields[key]!;
  const where = `${type.id}.${key}`;
  const ref = parseRef(type.packageId, spec.type);
  const options = {
    ...(spec.protoName !== undefined ? { protoName: spec.protoName } : {}),
    omitEmpty: spec.omitEmpty !== false,
  };
  if (ref.kind === "map") {
    const value = elementType(catalog, ref.of, where);
    let mapType: FieldType;
    if (value.kind === "message") mapType = { kind: "map", value: "message", message: value.message };
    else if (value.kind === "bytes") mapType = { kind: "map", value: "bytes" };
    else if (value.kind === "scalar" && value.scalar === "string") mapType = { kind: "map", value: "string" };
    else throw new Error(`${where}: a map of ${ref.of.kind} values has no descriptor form`);
    return field(key, spec.number, mapType, options);
  }
  if (ref.kind === "list") {
    return field(key, spec.number, elementType(catalog, ref.of, where), { ...options, repeated: true });
  }
  const element = elementType(catalog, ref, where);
  return field(key, spec.number, element, {
    ...options,
    // A Go []byte is nil-able like a pointer: written only when set.
    pointer: spec.pointer === true || element.kind === "bytes",
    inline: spec.inline === true,
  });
}

function typeDescriptor(catalog: Catalog, type: ResolvedType): MessageDescriptor {
  const fields = Object.keys(type.spec.fields).map((key) => fieldDescriptor(catalog, type, key));
  const name = messageName(type);
  if (type.spec.jsonAs === undefined) return { name, fields };
  if (type.spec.jsonAs === "[]string") return { name, fields, special: "stringList" };
  const special = JSON_AS[type.id];
  if (!special) throw new Error(`${type.id}: no JSON form for jsonAs ${type.spec.jsonAs}`);
  return { name, fields, special };
}

/** A kind as the catalog names it: `<package id>.<Kind>`, and whether it has a List kind. */
interface CatalogKind {
  readonly type: string;
  readonly list: boolean;
}

/** Kinds with their own files in backends/builtin, served besides CATALOG_KINDS. */
const OWN_KINDS: readonly CatalogKind[] = [
  ...["Namespace", "ConfigMap", "Secret", "ServiceAccount", "Event", "Pod", "Node"].map((k) => ({
    type: `core/v1.${k}`,
    list: true,
  })),
  { type: "events/v1.Event", list: true },
  { type: "certificates/v1.CertificateSigningRequest", list: true },
  ...["Role", "ClusterRole", "RoleBinding", "ClusterRoleBinding"].map((k) => ({
    type: `rbac/v1.${k}`,
    list: true,
  })),
];

/** Kinds sent to subresources and review endpoints: no stored objects, no lists. */
const ACTION_KINDS: readonly CatalogKind[] = [
  "core/v1.Binding",
  "policy/v1.Eviction",
  "autoscaling/v1.Scale",
  "authentication/v1.TokenRequest",
  "authentication/v1.TokenReview",
  "authentication/v1beta1.TokenReview",
  "authentication/v1.SelfSubjectReview",
  "authentication/v1beta1.SelfSubjectReview",
  "authentication/v1alpha1.SelfSubjectReview",
  "authorization/v1.SubjectAccessReview",
  "authorization/v1.LocalSubjectAccessReview",
  "authorization/v1.SelfSubjectAccessReview",
  "authorization/v1.SelfSubjectRulesReview",
].map((type) => ({ type, list: false }));

/** Every kind the gateway serves from the catalog, in every served version. */
function servedKinds(): CatalogKind[] {
  const stored = CATALOG_KINDS.flatMap((entry) =>
    [entry.pkg, ...(entry.otherVersions ?? []).map((v) => v.pkg)].map((pkg) => ({
      type: `${pkg}.${entry.kind}`,
      list: true,
    })),
  );
  return [...OWN_KINDS, ...stored, ...ACTION_KINDS];
}

export interface CatalogDescriptors {
  readonly messages: readonly MessageDescriptor[];
  readonly kinds: readonly KindDescriptor[];
}

/** The descriptors of every catalog type, and of every served kind and its list. */
export function catalogDescriptors(catalog: Catalog = builtinCatalog()): CatalogDescriptors {
  const messages: MessageDescriptor[] = [];
  for (const type of catalog.types()) messages.push(typeDescriptor(catalog, type));
  const kinds: KindDescriptor[] = [];
  for (const { type: id, list: withList } of servedKinds()) {
    const type = catalog.mustType(id);
    const { prefix, domain, version } = packageGroup(type.packageId);
    const bare = prefix !== "" && !domain;
    const kind = (name: string, message: string): KindDescriptor => ({
      kind: name,
      group: prefix,
      version,
      message,
      ...(bare ? { bare: true } : {}),
    });
    kinds.push(kind(type.name, messageName(type)));
    if (withList) {
      const listMessage = `${messageName(type)}List`;
      messages.push(list(listMessage, messageName(type)));
      kinds.push(kind(`${type.name}List`, listMessage));
    }
  }
  return { messages, kinds };
}
