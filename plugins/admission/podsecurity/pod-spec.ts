// Reading a pod's metadata and spec from plain JSON without trusting its shape: a field of the
// wrong type counts as unset, so malformed objects are judged, never crash the checks.
import type { JsonObject } from "../contract.ts";

export function record(value: unknown): JsonObject | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as JsonObject)
    : undefined;
}

export function records(value: unknown): JsonObject[] {
  return Array.isArray(value) ? value.map(record).filter((v): v is JsonObject => v !== undefined) : [];
}

export function text(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

export function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
}

/** A pod's (or template's) metadata and spec as the checks see them. */
export interface PodView {
  readonly annotations: Readonly<Record<string, string>>;
  readonly spec: JsonObject;
}

export function podView(metadata: unknown, spec: unknown): PodView {
  const annotations: Record<string, string> = {};
  for (const [k, v] of Object.entries(record(record(metadata)?.annotations) ?? {})) {
    if (typeof v === "string") annotations[k] = v;
  }
  return { annotations, spec: record(spec) ?? {} };
}

export interface ContainerView {
  readonly name: string;
  readonly raw: JsonObject;
  readonly securityContext: JsonObject | undefined;
}

/** Init containers, then containers, then ephemeral containers, as upstream visits them. */
export function containers(spec: JsonObject): ContainerView[] {
  return [
    ...records(spec.initContainers),
    ...records(spec.containers),
    ...records(spec.ephemeralContainers),
  ].map((raw) => ({ name: text(raw.name) ?? "", raw, securityContext: record(raw.securityContext) }));
}

export function podSecurityContext(spec: JsonObject): JsonObject | undefined {
  return record(spec.securityContext);
}

export function isWindows(spec: JsonObject): boolean {
  return text(record(spec.os)?.name) === "windows";
}
