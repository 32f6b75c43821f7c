// Test helper: an object as the built-in defaulters leave it, walked over the real catalog.
import { builtinCatalog } from "../../catalog/index.ts";
import { type NamingPreset, naming } from "../../naming/naming.ts";
import { builtinDefaulters, compileDefaulter } from "./index.ts";

export interface DefaultingCase {
  readonly name: string;
  /** The catalog type of the whole object, e.g. `apps/v1.Deployment`. */
  readonly type: string;
  readonly input: unknown;
  /** Upstream 1.27's defaulted object. */
  readonly expected: unknown;
  readonly preset?: NamingPreset;
}

/** A defaulted deep copy of `object`. */
export function defaulted(type: string, object: unknown, preset: NamingPreset = "cluster"): unknown {
  const copy = structuredClone(object);
  compileDefaulter(builtinCatalog(), type, builtinDefaulters(naming(preset)))(copy);
  return copy;
}
