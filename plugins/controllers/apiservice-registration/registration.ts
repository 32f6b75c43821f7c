// What the APIService registration controller decides, apart from how it talks to the API: the
// APIServices the gateway wants for its own group versions, and for each name what to do given
// the one that exists. The rules are upstream's autoregister controller's, with one change the
// issue asks for: an automanaged APIService that someone deletes is always created again (upstream
// restores an `onstart` one only at the next start).
import {
  isLocalAPIService,
  LOCAL_AVAILABLE,
  setAPIServiceCondition,
} from "../../../backends/builtin/index.ts";
import type { Naming } from "../../../backends/naming/index.ts";
import { builtinPriority, CRD_PRIORITY, type Priority } from "./priorities.ts";

type Json = Record<string, unknown>;

/** How an APIService is kept: once per start (built-in group versions) or always (custom resources). */
export type Managed = "onstart" | "true";

export interface GroupVersion {
  readonly group: string;
  readonly version: string;
}

function record(value: unknown): Json | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Json) : undefined;
}

function text(value: unknown): string {
  return typeof value === "string" ? value : "";
}

/** The label that marks an automanaged APIService, in the preset's label domain. */
export function automanagedLabel(naming: Naming): string {
  return naming.label("automanaged", "kube-aggregator");
}

export function apiServiceName(gv: GroupVersion): string {
  return `${gv.version}.${gv.group}`;
}

function apiService(naming: Naming, gv: GroupVersion, priority: Priority, managed: Managed): Json {
  return {
    apiVersion: `${naming.group("apiregistration")}/v1`,
    kind: "APIService",
    metadata: { name: apiServiceName(gv), labels: { [automanagedLabel(naming)]: managed } },
    spec: {
      group: gv.group,
      version: gv.version,
      groupPriorityMinimum: priority.group,
      versionPriority: priority.version,
    },
  };
}

/**
 * The APIServices of the gateway's own group versions, by name: those in upstream's priority
 * table, kept `onstart`. Group versions the table lacks get none, as upstream.
 */
export function builtinApiServices(naming: Naming, served: readonly GroupVersion[]): Map<string, Json> {
  const out = new Map<string, Json>();
  for (const gv of served) {
    const priority = builtinPriority(naming, gv.group, gv.version);
    if (priority) out.set(apiServiceName(gv), apiService(naming, gv, priority, "onstart"));
  }
  return out;
}

/** The group versions custom resource definitions serve: established ones, their served versions. */
export function crdGroupVersions(crds: Iterable<Json>): GroupVersion[] {
  const out = new Map<string, GroupVersion>();
  for (const crd of crds) {
    const conditions = Array.isArray(record(crd.status)?.conditions)
      ? (record(crd.status)?.conditions as unknown[])
      : [];
    const established = conditions.some(
      (c) => record(c)?.type === "Established" && record(c)?.status === "True",
    );
    if (!established) continue;
    const spec = record(crd.spec) ?? {};
    const group = text(spec.group);
    for (const v of Array.isArray(spec.versions) ? spec.versions : []) {
      const version = record(v);
      if (version?.served !== true || text(version.name) === "") continue;
      const gv = { group, version: text(version.name) };
      out.set(apiServiceName(gv), gv);
    }
  }
  return [...out.values()];
}

/** The APIServices of custom resource group versions, kept continuously, by name. */
export function crdApiServices(naming: Naming, gvs: readonly GroupVersion[]): Map<string, Json> {
  return new Map(gvs.map((gv) => [apiServiceName(gv), apiService(naming, gv, CRD_PRIORITY, "true")]));
}

function managedMode(object: Json | undefined, label: string): Managed | undefined {
  const value = record(record(object?.metadata)?.labels)?.[label];
  return value === "onstart" || value === "true" ? value : undefined;
}

/** Spec equality as Go's DeepEqual sees decoded specs: absent fields are their zero values. */
export function sameSpec(a: unknown, b: unknown): boolean {
  const normal = (value: unknown) => {
    const spec = record(value) ?? {};
    const service = record(spec.service);
    return JSON.stringify([
      text(spec.group),
      text(spec.version),
      spec.groupPriorityMinimum ?? 0,
      spec.versionPriority ?? 0,
      spec.insecureSkipTLSVerify === true,
      text(spec.caBundle),
      service ? [text(service.namespace), text(service.name), service.port ?? 443] : null,
    ]);
  };
  return normal(a) === normal(b);
}

export type Action =
  | { readonly kind: "none" }
  | { readonly kind: "create"; readonly object: Json }
  | { readonly kind: "update"; readonly object: Json }
  | { readonly kind: "delete"; readonly uid: string };

export interface DecisionInput {
  /** What the gateway wants under this name, or undefined. */
  readonly desired: Json | undefined;
  /** The APIService that exists under this name, or undefined. */
  readonly current: Json | undefined;
  /** The APIService existed when the controller started. */
  readonly presentAtStart: boolean;
  /** This name was synced without error before (in this run). */
  readonly syncedBefore: boolean;
  readonly label: string;
}

const NONE: Action = { kind: "none" };

/**
 * What to do about one APIService name. An `onstart` one is put back to the wanted spec once per
 * start (a later edit is kept until the next start) and a `true` one whenever it differs; one
 * without the label is never touched; an automanaged one nobody wants any more is deleted.
 */
export function decide(input: DecisionInput): Action {
  const { desired, current, presentAtStart, syncedBefore, label } = input;
  if (!current) return desired ? { kind: "create", object: desired } : NONE;
  const currentMode = managedMode(current, label);
  if (managedMode(desired, label) === "onstart" && syncedBefore) return NONE;
  if (currentMode === undefined) return NONE;
  if (currentMode === "onstart" && (!presentAtStart || syncedBefore)) return NONE;
  if (!desired) return { kind: "delete", uid: text(record(current.metadata)?.uid) };
  if (sameSpec(current.spec, desired.spec)) return NONE;
  return { kind: "update", object: { ...current, spec: structuredClone(desired.spec) } };
}

/**
 * The APIService with upstream's Available/Local condition, when it is local and lacks it;
 * undefined when there is nothing to write (remote APIServices are the availability
 * controller's).
 */
export function localStatusUpdate(current: Json): Json | undefined {
  if (!isLocalAPIService(current)) return undefined;
  const next = structuredClone(current);
  return setAPIServiceCondition(next, LOCAL_AVAILABLE) ? next : undefined;
}
