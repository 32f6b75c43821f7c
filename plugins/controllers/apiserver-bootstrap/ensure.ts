// Upstream's rules for keeping the flow-control bootstrap objects (its configuration ensurer):
// - a missing object, mandatory or suggested, is created;
// - a mandatory object's spec is always put back, and its auto-update annotation set to "true";
// - a suggested object's spec is put back only while its annotation says "true" (or, without a
//   readable annotation, while generation is 1: nobody has changed the spec); the annotation is
//   then set to what was decided, so an edited object is marked "false" and left alone;
// - an object that carries the annotation as "true" but is no longer part of the bootstrap
//   configuration is deleted.
import { sameJson } from "../same-json.ts";

type Json = Record<string, unknown>;

const TRUE_WORDS = new Set(["1", "t", "T", "TRUE", "true", "True"]);
const FALSE_WORDS = new Set(["0", "f", "F", "FALSE", "false", "False"]);

/** Go's strconv.ParseBool; undefined when the text is not a boolean. */
export function parseBool(text: string | undefined): boolean | undefined {
  if (text === undefined) return undefined;
  if (TRUE_WORDS.has(text)) return true;
  if (FALSE_WORDS.has(text)) return false;
  return undefined;
}

function metadataOf(object: Json): Json {
  const m = object.metadata;
  return typeof m === "object" && m !== null && !Array.isArray(m) ? (m as Json) : {};
}

function annotationOf(object: Json, key: string): string | undefined {
  const annotations = metadataOf(object).annotations as Record<string, unknown> | undefined;
  const value = annotations?.[key];
  return typeof value === "string" ? value : undefined;
}

/**
 * The object to write so that `current` is as upstream keeps it, or undefined when it already is.
 * `current` undefined: the bootstrap object, to create.
 */
export function ensuredObject(
  current: Json | undefined,
  bootstrap: Json,
  mandatory: boolean,
  annotationKey: string,
): { readonly create: boolean; readonly object: Json } | undefined {
  if (!current) return { create: true, object: bootstrap };
  const value = annotationOf(current, annotationKey);
  const autoUpdate = mandatory || (parseBool(value) ?? metadataOf(current).generation === 1);
  const annotationRight = parseBool(value) === autoUpdate;
  const specChanged = autoUpdate && !sameJson(current.spec, bootstrap.spec);
  if (annotationRight && !specChanged) return undefined;
  const meta = metadataOf(current);
  const object: Json = {
    ...current,
    metadata: {
      ...meta,
      annotations: {
        ...((meta.annotations as Record<string, unknown> | undefined) ?? {}),
        [annotationKey]: String(autoUpdate),
      },
    },
  };
  if (specChanged) object.spec = bootstrap.spec;
  return { create: false, object };
}

/** Whether an object outside the bootstrap configuration is one upstream deletes. */
export function isDanglingBootstrapObject(
  current: Json,
  bootstrapNames: ReadonlySet<string>,
  annotationKey: string,
): boolean {
  const name = metadataOf(current).name;
  if (typeof name !== "string" || bootstrapNames.has(name)) return false;
  return parseBool(annotationOf(current, annotationKey)) === true;
}
