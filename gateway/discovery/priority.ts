// Ordering in discovery: versions inside a group (the preferred version first) and groups in the
// group list. Both follow the reference server of release 1.27: versions by stability and number,
// groups by a fixed priority for the built-in groups, then by name.
import type { Naming } from "../../backends/naming/index.ts";

const kubeVersion = /^v(\d+)(?:(alpha|beta)(\d+))?$/;

interface ParsedVersion {
  readonly major: number;
  /** 0 alpha, 1 beta, 2 GA. */
  readonly stability: number;
  readonly minor: number;
}

function parseVersion(version: string): ParsedVersion | undefined {
  const match = kubeVersion.exec(version);
  if (!match) return undefined;
  const stability = match[2] === "alpha" ? 0 : match[2] === "beta" ? 1 : 2;
  return { major: Number(match[1]), stability, minor: stability === 2 ? 0 : Number(match[3]) };
}

/**
 * Compares two version names by priority: positive when `a` ranks above `b`. GA ranks above beta
 * above alpha, then the higher major number, then the higher alpha/beta number
 * (`v2, v1, v1beta2, v1beta1, v1alpha1`). Names of another shape rank below all of these, in
 * reverse lexical order among themselves.
 */
export function compareVersionPriority(a: string, b: string): number {
  if (a === b) return 0;
  const pa = parseVersion(a);
  const pb = parseVersion(b);
  if (!pa && !pb) return a < b ? 1 : -1;
  if (!pa) return -1;
  if (!pb) return 1;
  if (pa.stability !== pb.stability) return pa.stability - pb.stability;
  if (pa.major !== pb.major) return pa.major - pb.major;
  return pa.minor - pb.minor;
}

/** Sorts version names from the highest priority (the preferred version) down. */
export function sortVersionsByPriority(versions: Iterable<string>): string[] {
  return [...versions].sort((a, b) => compareVersionPriority(b, a));
}

/** The priority of a group no built-in entry names (the one custom resources get). */
export const DEFAULT_GROUP_PRIORITY = 1000;

// Built-in group priorities of release 1.27, by the group's prefix and whether the preset's domain
// follows it (`apps` has none). The registration group comes first: the reference server always
// lists it first.
const builtinGroupPriorities: ReadonlyArray<readonly [prefix: string, suffixed: boolean, priority: number]> =
  [
    ["apiregistration", true, 20000],
    ["apps", false, 17800],
    ["events", true, 17750],
    ["authentication", true, 17700],
    ["authorization", true, 17600],
    ["autoscaling", false, 17500],
    ["batch", false, 17400],
    ["certificates", true, 17300],
    ["networking", true, 17200],
    ["policy", false, 17100],
    ["rbac.authorization", true, 17000],
    ["storage", true, 16800],
    ["apiextensions", true, 16700],
    ["admissionregistration", true, 16700],
    ["scheduling", true, 16600],
    ["coordination", true, 16500],
    ["node", true, 16300],
    ["discovery", true, 16200],
    ["flowcontrol", true, 16100],
    ["internal.apiserver", true, 16000],
    ["resource", true, 15900],
  ];

const prioritiesByNaming = new WeakMap<Naming, ReadonlyMap<string, number>>();

/** The priority of a named group under a naming preset: higher is listed earlier. */
export function groupPriority(naming: Naming, group: string): number {
  let table = prioritiesByNaming.get(naming);
  if (!table) {
    table = new Map(
      builtinGroupPriorities.map(([prefix, suffixed, priority]) => [
        suffixed ? naming.group(prefix) : prefix,
        priority,
      ]),
    );
    prioritiesByNaming.set(naming, table);
  }
  return table.get(group) ?? DEFAULT_GROUP_PRIORITY;
}

/** Sorts group names: higher priority first, equal priorities by name. */
export function sortGroupsByPriority(naming: Naming, groups: Iterable<string>): string[] {
  return [...groups].sort((a, b) => {
    const pa = groupPriority(naming, a);
    const pb = groupPriority(naming, b);
    if (pa !== pb) return pb - pa;
    return a < b ? -1 : a > b ? 1 : 0;
  });
}
