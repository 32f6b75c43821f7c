// Warnings for writes that spell a name the way the other naming preset does (a manifest written
// for upstream sent to a server with the default naming): the server would otherwise ignore the
// label, annotation, secret type or namespace in silence. The preset is the server's, never
// guessed per request; the names come from both presets' tables in backends/naming.
import { type Naming, otherNaming } from "../backends/naming/index.ts";
import type { RequestContext } from "./pipeline/index.ts";
import type { ServedResource } from "./routing/resources.ts";

interface Translations {
  readonly labels: ReadonlyMap<string, string>;
  readonly annotations: ReadonlyMap<string, string>;
  readonly secretTypes: ReadonlyMap<string, string>;
  readonly namespaces: ReadonlyMap<string, string>;
}

/** The other preset's spelling of each name to this preset's (the tables share their order). */
function zip(theirs: readonly string[], ours: readonly string[]): ReadonlyMap<string, string> {
  const out = new Map<string, string>();
  theirs.forEach((name, i) => {
    const own = ours[i];
    if (own !== undefined && own !== name) out.set(name, own);
  });
  return out;
}

const cache = new Map<Naming, Translations>();
function translations(naming: Naming): Translations {
  let t = cache.get(naming);
  if (!t) {
    const other = otherNaming(naming);
    t = {
      labels: zip(other.readLabels, naming.readLabels),
      annotations: zip(other.readAnnotations, naming.readAnnotations),
      secretTypes: zip(other.secretTypes, naming.secretTypes),
      namespaces: zip(other.reservedNamespaces, naming.reservedNamespaces),
    };
    cache.set(naming, t);
  }
  return t;
}

const ROLES = ["system", "public", "node lease"];

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export interface NamingWarningTarget {
  readonly served: ServedResource;
  /** The request's namespace. */
  readonly ns: string | undefined;
  readonly subresource: string | undefined;
}

/**
 * Adds a Warning for each name in a write that this server does not read under its preset but
 * the other preset does: labels and annotations of the object, a Secret's type, the request's
 * namespace (and a Namespace's name). `object` is what the write stores or applies.
 */
export function warnOtherNaming(
  ctx: RequestContext,
  naming: Naming,
  target: NamingWarningTarget,
  object: unknown,
): void {
  const t = translations(naming);
  const flag = `(--api-naming=${naming.preset})`;
  const namespace = (name: string | undefined) => {
    const own = name === undefined ? undefined : t.namespaces.get(name);
    if (own === undefined) return;
    const role = ROLES[naming.reservedNamespaces.indexOf(own)] ?? "reserved";
    ctx.warnings.push(`namespace ${name} is not this server's ${role} namespace: it uses ${own} ${flag}`);
  };
  namespace(target.ns);
  // A subresource's write keeps the object's metadata and type as they are.
  if (target.subresource || !isRecord(object)) return;
  const { schema } = target.served;
  const meta = isRecord(object.metadata) ? object.metadata : {};
  if (schema.group === "" && schema.plural === "namespaces" && typeof meta.name === "string")
    namespace(meta.name);
  const keys = (what: string, map: unknown, known: ReadonlyMap<string, string>) => {
    if (!isRecord(map)) return;
    for (const key of Object.keys(map)) {
      const own = known.get(key);
      if (own !== undefined)
        ctx.warnings.push(`${what} ${key} is not read by this server: it reads ${own} ${flag}`);
    }
  };
  keys("label", meta.labels, t.labels);
  keys("annotation", meta.annotations, t.annotations);
  if (schema.group === "" && schema.plural === "secrets" && typeof object.type === "string") {
    const own = t.secretTypes.get(object.type);
    if (own !== undefined)
      ctx.warnings.push(`secret type ${object.type} is not read by this server: it reads ${own} ${flag}`);
  }
}
