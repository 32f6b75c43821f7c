// Upstream's pod security metrics: evaluations, exemptions and errors, labelled as upstream.
import { Counter, type Registry } from "prom-client";
import type { Attributes } from "../contract.ts";
import { sharedMetric } from "../shared-metric.ts";
import { type LevelVersion, versionString } from "./levels.ts";

/** The server's own minor version: policy versions beyond it are counted as `future`. */
const SERVER_MINOR = 27;

export interface PodSecurityMetrics {
  evaluation(
    decision: "allow" | "deny",
    policy: LevelVersion,
    mode: "enforce" | "audit" | "warn",
    a: Attributes,
  ): void;
  exemption(a: Attributes): void;
  error(fatal: boolean, a: Attributes): void;
}

function counter<T extends string>(
  registry: Registry,
  name: string,
  help: string,
  labelNames: readonly T[],
): Counter<T> {
  return sharedMetric(registry, name, () => new Counter({ name, help, labelNames, registers: [registry] }));
}

function resourceLabel(a: Attributes): string {
  if (a.resource.group !== "") return "controller";
  if (a.resource.resource === "pods") return "pod";
  return a.resource.resource === "namespaces" ? "namespace" : "controller";
}

export function podSecurityMetrics(registry: Registry): PodSecurityMetrics {
  const evaluations = counter(
    registry,
    "pod_security_evaluations_total",
    "Number of policy evaluations that occurred, not counting ignored or exempt requests.",
    ["decision", "policy_level", "policy_version", "mode", "request_operation", "resource", "subresource"],
  );
  const exemptions = counter(
    registry,
    "pod_security_exemptions_total",
    "Number of exempt requests, not counting ignored or out of scope requests.",
    ["request_operation", "resource", "subresource"],
  );
  const errors = counter(
    registry,
    "pod_security_errors_total",
    "Number of errors preventing normal evaluation. Non-fatal errors may result in the latest restricted profile being used for evaluation.",
    ["fatal", "request_operation", "resource", "subresource"],
  );
  const request = (a: Attributes) => ({
    request_operation: a.operation.toLowerCase(),
    resource: resourceLabel(a),
    subresource: a.subresource,
  });
  return {
    evaluation(decision, policy, mode, a) {
      const version =
        policy.version === "latest" || policy.level === "privileged"
          ? "latest"
          : policy.version <= SERVER_MINOR
            ? versionString(policy.version)
            : "future";
      evaluations.inc({ decision, policy_level: policy.level, policy_version: version, mode, ...request(a) });
    },
    exemption(a) {
      exemptions.inc(request(a));
    },
    error(fatal, a) {
      errors.inc({ fatal: String(fatal), ...request(a) });
    },
  };
}
