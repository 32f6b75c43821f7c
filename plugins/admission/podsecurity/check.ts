// What a Pod Security check is: an id, the level it belongs to, and its behaviour from each
// minimum version on (upstream's policy.Check).
import type { Level } from "./levels.ts";
import type { PodView } from "./pod-spec.ts";

export type CheckResult =
  | { readonly allowed: true }
  | { readonly allowed: false; readonly reason: string; readonly detail: string };

export const ALLOWED: CheckResult = { allowed: true };

/** Annotation keys the checks read, under the naming preset's domain. */
export interface CheckKeys {
  /** `container.apparmor.security.beta.<domain>/` */
  readonly appArmorPrefix: string;
  /** `seccomp.security.alpha.<domain>/pod` */
  readonly seccompPod: string;
  /** `container.seccomp.security.alpha.<domain>/` */
  readonly seccompContainerPrefix: string;
}

export type CheckFn = (pod: PodView, keys: CheckKeys) => CheckResult;

export interface VersionedCheck {
  /** The first v1 minor version this behaviour applies to. */
  readonly minimumVersion: number;
  readonly check: CheckFn;
  /** Baseline checks this restricted check replaces at these versions. */
  readonly overrides?: readonly string[];
}

export interface Check {
  readonly id: string;
  readonly level: Exclude<Level, "privileged">;
  /** Strictly increasing minimum versions. */
  readonly versions: readonly VersionedCheck[];
}

export function forbid(reason: string, detail: string): CheckResult {
  return { allowed: false, reason, detail };
}
