// The catalog's packages merged by id, with type references resolved. Several files may add
// types to one package (core/v1 is written in parts); a type defined twice is an error.
import type { CatalogPackage, TypeRef, TypeSpec } from "./model.ts";

export const SCALAR_TYPES = [
  "string",
  "bool",
  "int32",
  "int64",
  "double",
  "bytes",
  "quantity",
  "intOrString",
  "time",
  "microTime",
  "duration",
  "rawExtension",
  "json",
  "fieldsV1",
] as const;
export type ScalarType = (typeof SCALAR_TYPES)[number];

const scalars: ReadonlySet<string> = new Set(SCALAR_TYPES);

export type ParsedRef =
  | { readonly kind: "scalar"; readonly scalar: ScalarType }
  | { readonly kind: "list"; readonly of: ParsedRef }
  | { readonly kind: "map"; readonly of: ParsedRef }
  /** A named type: `id` is `<package id>.<Name>`. */
  | { readonly kind: "type"; readonly id: string };

export interface ResolvedType {
  readonly id: string;
  readonly packageId: string;
  readonly name: string;
  readonly protoPackage: string;
  readonly spec: TypeSpec;
}

/** Parses a reference written in package `from`. */
export function parseRef(from: string, ref: TypeRef): ParsedRef {
  if (ref.startsWith("[]")) return { kind: "list", of: parseRef(from, ref.slice(2)) };
  if (ref.startsWith("{}")) return { kind: "map", of: parseRef(from, ref.slice(2)) };
  if (scalars.has(ref)) return { kind: "scalar", scalar: ref as ScalarType };
  // `core/v1.PodSpec`: the package id holds a slash, the type name follows the last dot.
  if (ref.includes("/")) return { kind: "type", id: ref };
  return { kind: "type", id: `${from}.${ref}` };
}

export class Catalog {
  readonly #types = new Map<string, ResolvedType>();

  constructor(packages: readonly CatalogPackage[]) {
    const protoOf = new Map<string, string>();
    for (const p of packages) {
      const known = protoOf.get(p.id);
      if (known !== undefined && known !== p.protoPackage) {
        throw new Error(`catalog package ${p.id}: two Protobuf packages (${known}, ${p.protoPackage})`);
      }
      protoOf.set(p.id, p.protoPackage);
      for (const [name, spec] of Object.entries(p.types)) {
        const id = `${p.id}.${name}`;
        if (this.#types.has(id)) throw new Error(`catalog type ${id} is defined twice`);
        this.#types.set(id, { id, packageId: p.id, name, protoPackage: p.protoPackage, spec });
      }
    }
  }

  type(id: string): ResolvedType | undefined {
    return this.#types.get(id);
  }

  /** A type that must exist; a missing one is a bug in the catalog. */
  mustType(id: string): ResolvedType {
    const t = this.#types.get(id);
    if (!t) throw new Error(`catalog type ${id} is not defined`);
    return t;
  }

  types(): IterableIterator<ResolvedType> {
    return this.#types.values();
  }
}

// Packages whose API group is not the package's first segment, and the groups spelled with the
// naming preset's suffix.
const GROUP_PREFIX: Readonly<Record<string, string>> = { rbac: "rbac.authorization" };
const DOMAIN_GROUPS = new Set([
  "networking",
  "discovery",
  "coordination",
  "events",
  "node",
  "scheduling",
  "storage",
  "rbac.authorization",
  "certificates",
  "admissionregistration",
  "apiextensions",
  "apiregistration",
  "flowcontrol",
  "authentication",
  "authorization",
]);

export interface PackageGroup {
  /** `""` for core, `meta` for the shared meta types, else the group's short name. */
  readonly prefix: string;
  /** The group's name takes the naming preset's suffix. */
  readonly domain: boolean;
  readonly version: string;
}

/** The API group and version a catalog package describes: `apps/v1` → apps, v1. */
export function packageGroup(packageId: string): PackageGroup {
  const [first = "", version = ""] = packageId.split("/");
  const prefix = first === "core" ? "" : (GROUP_PREFIX[first] ?? first);
  return { prefix, domain: DOMAIN_GROUPS.has(prefix), version };
}
