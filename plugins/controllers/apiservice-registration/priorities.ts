// Discovery priorities of the built-in group versions, as upstream's kube-apiserver 1.27 registers
// them (its apiVersionPriorities table), with the product groups spelled by the naming preset.
// Upstream registers no APIService for a built-in group version its table lacks, and gives every
// custom resource group version the same low priorities.
import type { Naming } from "../../../backends/naming/index.ts";

export interface Priority {
  readonly group: number;
  readonly version: number;
}

/** What upstream gives each custom resource group version. */
export const CRD_PRIORITY: Priority = { group: 1000, version: 100 };

// [group prefix, whether the preset's domain follows it, group priority, [version, priority]...]
type Row = readonly [
  prefix: string,
  suffixed: boolean,
  group: number,
  versions: Readonly<Record<string, number>>,
];

const TABLE: readonly Row[] = [
  ["", false, 18000, { v1: 1 }],
  ["apps", false, 17800, { v1: 15 }],
  ["events", true, 17750, { v1: 15, v1beta1: 5 }],
  ["authentication", true, 17700, { v1: 15, v1beta1: 9, v1alpha1: 1 }],
  ["authorization", true, 17600, { v1: 15 }],
  ["autoscaling", false, 17500, { v1: 15, v2: 30, v2beta1: 9, v2beta2: 1 }],
  ["batch", false, 17400, { v1: 15, v1beta1: 9, v2alpha1: 9 }],
  ["certificates", true, 17300, { v1: 15, v1alpha1: 1 }],
  ["networking", true, 17200, { v1: 15, v1alpha1: 1 }],
  ["policy", false, 17100, { v1: 15, v1beta1: 9 }],
  ["rbac.authorization", true, 17000, { v1: 15 }],
  ["storage", true, 16800, { v1: 15, v1beta1: 9, v1alpha1: 1 }],
  ["apiextensions", true, 16700, { v1: 15 }],
  ["admissionregistration", true, 16700, { v1: 15, v1alpha1: 9 }],
  ["scheduling", true, 16600, { v1: 15 }],
  ["coordination", true, 16500, { v1: 15 }],
  ["node", true, 16300, { v1: 15, v1alpha1: 1, v1beta1: 9 }],
  ["discovery", true, 16200, { v1: 15, v1beta1: 12 }],
  // The preset names this group: `flowcontrol.apiserver.k8s.io` upstream.
  ["flowcontrol", true, 16100, { v1beta3: 18, v1beta2: 15, v1beta1: 12, v1alpha1: 9 }],
  ["internal.apiserver", true, 16000, { v1alpha1: 9 }],
  ["resource", true, 15900, { v1alpha2: 9 }],
];

const tables = new WeakMap<Naming, ReadonlyMap<string, Priority>>();

/** The priorities of a built-in group version, or undefined when upstream registers none for it. */
export function builtinPriority(naming: Naming, group: string, version: string): Priority | undefined {
  let table = tables.get(naming);
  if (!table) {
    const entries = new Map<string, Priority>();
    for (const [prefix, suffixed, groupPriority, versions] of TABLE) {
      const name = suffixed ? naming.group(prefix) : prefix;
      for (const [v, versionPriority] of Object.entries(versions)) {
        entries.set(`${name}/${v}`, { group: groupPriority, version: versionPriority });
      }
    }
    table = entries;
    tables.set(naming, table);
  }
  return table.get(`${group}/${version}`);
}
