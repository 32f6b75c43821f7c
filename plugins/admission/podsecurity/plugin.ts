// The PodSecurity validating plugin: pods are enforced, audited and warned about against their
// namespace's policy; pod templates of workload resources are only audited and warned about;
// namespace label changes are validated and report existing pods the new enforce level rejects.
import { formatFieldError } from "../../../backends/registry/index.ts";
import type { AdmissionPlugin, Attributes, JsonObject, PluginEnv } from "../contract.ts";
import { badRequest, forbidden, internalError, invalid } from "../errors.ts";
import type { CheckKeys } from "./check.ts";
import { parseConfig } from "./config.ts";
import { evaluate, type Verdict, verdictDetail, verdictReasons } from "./evaluator.ts";
import { byCodeUnit } from "./format.ts";
import {
  compareLevels,
  equivalentPolicies,
  fullyPrivileged,
  LATEST,
  type LevelVersion,
  levelVersionString,
  type Policy,
  policyFromLabels,
  policyLabels,
  sameLevelVersion,
} from "./levels.ts";
import { podSecurityMetrics } from "./metrics.ts";
import { type PodView, podView, record, records, text } from "./pod-spec.ts";
import { hasPodTemplate, podTemplate } from "./templates.ts";

export const PLUGIN_NAME = "PodSecurity";

/** At most this many existing pods are checked when a namespace's enforce level tightens. */
export const NAMESPACE_MAX_PODS_TO_CHECK = 3000;
const NAMESPACE_POD_CHECK_TIMEOUT_MS = 1000;

// Subresources of pods that cannot change what the pod runs.
const IGNORED_POD_SUBRESOURCES = new Set([
  "exec",
  "attach",
  "binding",
  "eviction",
  "log",
  "portforward",
  "proxy",
  "status",
]);

const NAMESPACES = { group: "", resource: "namespaces" };
const PODS = { group: "", resource: "pods" };

export interface PodSecurityOptions {
  /** Overrides the bound on existing pods checked on a namespace change (tests). */
  readonly namespaceMaxPodsToCheck?: number;
}

export function createPodSecurity(env: PluginEnv, options: PodSecurityOptions = {}): AdmissionPlugin {
  const config = parseConfig(env.configuration, env.naming);
  const label = env.naming.label;
  const labels = policyLabels(label);
  const annotationKey = (name: string) => label(name, "pod-security");
  const keys: CheckKeys = {
    appArmorPrefix: label("", "container.apparmor.security.beta"),
    seccompPod: label("pod", "seccomp.security.alpha"),
    seccompContainerPrefix: label("", "container.seccomp.security.alpha"),
  };
  const maxPods = options.namespaceMaxPodsToCheck ?? NAMESPACE_MAX_PODS_TO_CHECK;
  const metrics = podSecurityMetrics(env.metrics);
  const exempt = (a: Attributes, why: "namespace" | "user" | "runtimeClass") => {
    metrics.exemption(a);
    a.annotate(annotationKey("exempt"), why);
  };
  // Namespaces come from the watch cache, so one labels object stands for one namespace revision.
  const parsed = new WeakMap<object, ReturnType<typeof policyFromLabels>>();
  const policyOf = (nsLabels: unknown) => {
    const key = record(nsLabels);
    const known = key ? parsed.get(key) : undefined;
    if (known) return known;
    const policy = policyFromLabels(stringMap(key), config.defaults, labels);
    if (key) parsed.set(key, policy);
    return policy;
  };

  const exemptNamespace = (ns: string) => ns !== "" && config.exemptions.namespaces.has(ns);
  const exemptUser = (user: string) => user !== "" && config.exemptions.usernames.has(user);
  const exemptRuntimeClass = (spec: JsonObject) => {
    const rc = text(spec.runtimeClassName);
    return rc !== undefined && rc !== "" && config.exemptions.runtimeClasses.has(rc);
  };

  async function namespaceLabels(a: Attributes): Promise<{ labels: unknown } | { error: string }> {
    try {
      const ns = a.namespace ? await env.objects.get(NAMESPACES, undefined, a.namespace) : undefined;
      if (!ns) return { error: `namespaces "${a.namespace}" not found` };
      return { labels: record(ns.metadata)?.labels };
    } catch (err) {
      return { error: err instanceof Error ? err.message : String(err) };
    }
  }

  /** Evaluates one pod or template against the namespace policy; throws when enforce denies. */
  function evaluatePod(
    a: Attributes,
    policy: Policy,
    policyErrors: string | undefined,
    pod: PodView,
    enforce: boolean,
  ): void {
    if (exemptRuntimeClass(pod.spec)) {
      exempt(a, "runtimeClass");
      return;
    }
    if (policyErrors !== undefined) {
      a.annotate(annotationKey("error"), `Failed to parse policy: ${policyErrors}`);
      metrics.error(false, a);
    }
    const cache = new Map<string, Verdict>();
    const run = (lv: LevelVersion) => {
      const key = levelVersionString(lv);
      let verdict = cache.get(key);
      if (!verdict) {
        verdict = evaluate(lv, pod, keys);
        cache.set(key, verdict);
      }
      return verdict;
    };
    let denial: string | undefined;
    if (enforce) {
      a.annotate(annotationKey("enforce-policy"), levelVersionString(policy.enforce));
      const verdict = run(policy.enforce);
      if (!verdict.allowed) {
        denial = `violates PodSecurity "${levelVersionString(policy.enforce)}": ${verdictDetail(verdict)}`;
      }
      metrics.evaluation(verdict.allowed ? "allow" : "deny", policy.enforce, "enforce", a);
    }
    const audit = run(policy.audit);
    if (!audit.allowed) {
      a.annotate(
        annotationKey("audit-violations"),
        `would violate PodSecurity "${levelVersionString(policy.audit)}": ${verdictDetail(audit)}`,
      );
      metrics.evaluation("deny", policy.audit, "audit", a);
    }
    if (denial !== undefined) throw forbidden(a, denial);
    const warn = run(policy.warn);
    if (!warn.allowed) {
      a.warn(`would violate PodSecurity "${levelVersionString(policy.warn)}": ${verdictDetail(warn)}`);
      metrics.evaluation("deny", policy.warn, "warn", a);
    }
  }

  async function validatePod(a: Attributes): Promise<void> {
    if (IGNORED_POD_SUBRESOURCES.has(a.subresource)) return;
    if (exemptNamespace(a.namespace)) return exempt(a, "namespace");
    if (exemptUser(a.user.username)) return exempt(a, "user");
    const ns = await namespaceLabels(a);
    if ("error" in ns) {
      const err = internalError(`failed to lookup namespace "${a.namespace}"`);
      a.annotate(annotationKey("error"), `${err.message}: ${ns.error}`);
      metrics.error(true, a);
      throw err;
    }
    const { policy, errors } = policyOf(ns.labels);
    if (errors.length === 0 && fullyPrivileged(policy)) {
      a.annotate(annotationKey("enforce-policy"), levelVersionString(LATEST));
      metrics.evaluation("allow", policy.enforce, "enforce", a);
      return;
    }
    const pod = record(a.object);
    const decodeFailure = (message: string) => {
      a.annotate(annotationKey("error"), message);
      metrics.error(true, a);
      return badRequest(message);
    };
    if (!pod) throw decodeFailure("failed to decode pod");
    if (a.operation === "UPDATE") {
      const old = record(a.oldObject);
      if (!old) throw decodeFailure("failed to decode old pod");
      if (!significantPodUpdate(record(pod.spec) ?? {}, record(old.spec) ?? {})) return;
    }
    evaluatePod(a, policy, aggregateErrors(errors), podView(pod.metadata, pod.spec), true);
  }

  async function validateController(a: Attributes): Promise<void> {
    if (a.subresource !== "") return;
    if (exemptNamespace(a.namespace)) return exempt(a, "namespace");
    if (exemptUser(a.user.username)) return exempt(a, "user");
    const ns = await namespaceLabels(a);
    if ("error" in ns) {
      // Templates are never refused: a lookup failure only leaves an annotation.
      a.annotate(annotationKey("error"), `failed to lookup namespace "${a.namespace}": ${ns.error}`);
      metrics.error(true, a);
      return;
    }
    const { policy, errors } = policyOf(ns.labels);
    if (errors.length === 0 && policy.warn.level === "privileged" && policy.audit.level === "privileged")
      return;
    const object = record(a.object);
    if (!object) {
      a.annotate(annotationKey("error"), "failed to decode object");
      metrics.error(true, a);
      return;
    }
    const template = podTemplate(a.resource.group, a.resource.resource, object);
    if (!template) return;
    evaluatePod(a, policy, aggregateErrors(errors), template, false);
  }

  async function validateNamespace(a: Attributes): Promise<void> {
    if (a.subresource !== "") return;
    const namespace = record(a.object);
    if (!namespace) throw badRequest("failed to decode namespace");
    const metadata = record(namespace.metadata);
    const name = text(metadata?.name) ?? a.name;
    const nsLabels = stringMap(record(metadata?.labels));
    const { policy, errors } = policyOf(nsLabels);
    // The request's namespace: upstream's is empty on a Namespace create and its name afterwards.
    const requestNamespace = a.namespace || (a.operation === "CREATE" ? "" : a.name);
    if (a.operation === "CREATE") {
      if (errors.length) throw invalid(a, errors);
      if (exemptNamespace(requestNamespace)) {
        const warning = exemptNamespaceWarning(name, policy, nsLabels);
        if (warning) a.warn(warning);
      }
      return;
    }
    if (a.operation !== "UPDATE") return;
    const old = record(a.oldObject);
    if (!old) throw badRequest("failed to decode  old namespace");
    const { policy: oldPolicy, errors: oldErrors } = policyOf(record(old.metadata)?.labels);
    if (
      errors.length &&
      (oldErrors.length === 0 ||
        errors.map(formatFieldError).join("\n") !== oldErrors.map(formatFieldError).join("\n"))
    ) {
      throw invalid(a, errors);
    }
    if (sameLevelVersion(policy.enforce, oldPolicy.enforce)) return;
    if (policy.enforce.level === "privileged") return;
    // Loosening the level at the same version cannot reject existing pods.
    if (
      policy.enforce.version === oldPolicy.enforce.version &&
      compareLevels(policy.enforce.level, oldPolicy.enforce.level) < 1
    ) {
      return;
    }
    if (exemptNamespace(requestNamespace)) {
      const warning = exemptNamespaceWarning(name, policy, nsLabels);
      if (warning) a.warn(warning);
      return;
    }
    for (const w of await evaluatePodsInNamespace(name, policy.enforce)) a.warn(w);
  }

  function exemptNamespaceWarning(ns: string, policy: Policy, nsLabels: Record<string, string>): string {
    if (fullyPrivileged(policy) || equivalentPolicies(policy, config.defaults)) return "";
    const parts: string[] = [];
    const has = (k: string) => Object.hasOwn(nsLabels, k);
    const modes: [LevelVersion, string, string, string][] = [
      [policy.enforce, "enforce", labels.enforce, labels.enforceVersion],
      [policy.audit, "audit", labels.audit, labels.auditVersion],
      [policy.warn, "warn", labels.warn, labels.warnVersion],
    ];
    for (const [lv, mode, levelKey, versionKey] of modes) {
      if (lv.level !== "privileged" && (has(levelKey) || has(versionKey))) {
        parts.push(`${mode}=${levelVersionString(lv)}`);
      }
    }
    return `namespace "${ns}" is exempt from Pod Security, and the policy (${parts.join(", ")}) will be ignored`;
  }

  async function evaluatePodsInNamespace(namespace: string, enforce: LevelVersion): Promise<string[]> {
    const informer = env.objects.informer(PODS);
    const listed = informer && (await synced(informer.synced, NAMESPACE_POD_CHECK_TIMEOUT_MS));
    if (!informer || !listed) return ["failed to list pods while checking new PodSecurity enforce level"];
    const pods = prioritize(informer.list(namespace) as JsonObject[]);
    const total = pods.length;
    const toCheck = pods.slice(0, maxPods);
    let checked = toCheck.length;
    const deadline = performance.now() + NAMESPACE_POD_CHECK_TIMEOUT_MS;
    const seen = new Map<string, { podName: string; count: number }>();
    const order: string[] = [];
    for (const [i, pod] of toCheck.entries()) {
      const verdict = evaluate(enforce, podView(pod.metadata, pod.spec), keys);
      if (!verdict.allowed) {
        const warning = verdictReasons(verdict);
        const podName = text(record(pod.metadata)?.name) ?? "";
        const entry = seen.get(warning);
        if (!entry) {
          seen.set(warning, { podName, count: 1 });
          order.push(warning);
        } else {
          entry.count++;
          if (podName < entry.podName) entry.podName = podName;
        }
      }
      if (performance.now() > deadline) {
        checked = i + 1;
        break;
      }
    }
    const warnings: string[] = [];
    if (checked < total) {
      warnings.push(
        `new PodSecurity enforce level only checked against the first ${checked} of ${total} existing pods`,
      );
    }
    if (order.length) {
      warnings.push(
        `existing pods in namespace "${namespace}" violate the new PodSecurity enforce level "${levelVersionString(enforce)}"`,
      );
    }
    const decorated = order.map((warning) => {
      const { podName, count } = seen.get(warning) ?? { podName: "", count: 0 };
      if (count === 1) return `${podName}: ${warning}`;
      if (count === 2) return `${podName} (and 1 other pod): ${warning}`;
      return `${podName} (and ${count - 1} other pods): ${warning}`;
    });
    return [...warnings, ...decorated.sort(byCodeUnit)];
  }

  /** One pod per controller first, so the bounded check sees as many different specs as it can. */
  function prioritize(pods: readonly JsonObject[]): JsonObject[] {
    const first: JsonObject[] = [];
    const duplicates: JsonObject[] = [];
    const controllers = new Set<string>();
    for (const pod of pods) {
      if (exemptRuntimeClass(record(pod.spec) ?? {})) continue;
      const owner = records(record(pod.metadata)?.ownerReferences).find((r) => r.controller === true);
      if (!owner) {
        first.push(pod);
        continue;
      }
      const uid = text(owner.uid) ?? "";
      if (controllers.has(uid)) duplicates.push(pod);
      else {
        controllers.add(uid);
        first.push(pod);
      }
    }
    return [...first, ...duplicates];
  }

  return {
    name: PLUGIN_NAME,
    async validate(a) {
      if (a.operation !== "CREATE" && a.operation !== "UPDATE") return;
      const { group, resource } = a.resource;
      if (group === "" && resource === "namespaces") return validateNamespace(a);
      if (group === "" && resource === "pods") return validatePod(a);
      if (hasPodTemplate(group, resource)) return validateController(a);
    },
  };
}

/** Whether `ready` settles within `ms` (the pod check is best effort and must not hang a write). */
async function synced(ready: Promise<void>, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([ready.then(() => true), timeout]);
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}

function stringMap(value: JsonObject | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(value ?? {})) if (typeof v === "string") out[k] = v;
  return out;
}

/** Go's field.ErrorList.ToAggregate().Error(). */
function aggregateErrors(errors: readonly Parameters<typeof formatFieldError>[0][]): string | undefined {
  if (errors.length === 0) return undefined;
  const texts = errors.map(formatFieldError);
  return texts.length === 1 ? texts[0] : `[${texts.join(", ")}]`;
}

/** Only image changes (and new ephemeral containers) can change what a running pod does. */
export function significantPodUpdate(spec: JsonObject, old: JsonObject): boolean {
  const list = (s: JsonObject, key: string) => records(s[key]);
  for (const key of ["containers", "initContainers"]) {
    const now = list(spec, key);
    const before = list(old, key);
    if (now.length !== before.length) return true;
    if (now.some((c, i) => c.image !== before[i]?.image)) return true;
  }
  const oldEphemeral = list(old, "ephemeralContainers");
  for (const c of list(spec, "ephemeralContainers")) {
    const previous = oldEphemeral.find((o) => o.name === c.name);
    if (!previous || previous.image !== c.image) return true;
  }
  return false;
}
