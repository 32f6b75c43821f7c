// The two Pod subresources that act rather than store: `binding` assigns a pod to a node (what a
// scheduler posts), `eviction` deletes a pod unless a PodDisruptionBudget forbids it (what
// `kubectl drain` posts). Both answer 201 with a Success Status, as upstream does.
import { asArray, asObject, asString, type JsonObject } from "../backends/common/json.ts";
import { type Registry, RegistryError } from "../backends/registry/index.ts";
import { labelSelectorFromObject, SelectorParseError } from "../backends/selection/index.ts";
import { ApiError, errors } from "./request/api-error.ts";
import { reviewSchema } from "./reviews/schema.ts";
import type { ResourceTable, VirtualResource } from "./routing/resources.ts";

const SUCCESS = (code: number): JsonObject => ({
  kind: "Status",
  apiVersion: "v1",
  metadata: {},
  status: "Success",
  code,
});

const PODS = { group: "", resource: "pods" };

function registryOf(resources: ResourceTable, group: string, resource: string): Registry {
  const served = resources.byResource(group, resource);
  if (!served) throw errors.pageNotFound();
  return served.registry;
}

/** `POST pods/<name>/binding`: sets spec.nodeName once, and the PodScheduled condition. */
export function podBindingAction(resources: ResourceTable): VirtualResource {
  return {
    schema: {
      ...reviewSchema({ group: "", versions: [{ name: "v1", served: true }], kind: "Binding" }),
      namespaced: true,
    },
    async create(_ctx, body, _version, namespace, name) {
      const podName = name ?? "";
      const target = asObject(body.target);
      const node = asString(target?.name);
      const kind = asString(target?.kind);
      if (node === "") {
        throw errors.invalid({ group: "", kind: "Binding" }, podName, [
          { field: "target.name", type: "FieldValueRequired", detail: "" },
        ]);
      }
      if (kind !== "" && kind !== "Node") {
        throw errors.invalid({ group: "", kind: "Binding" }, podName, [
          {
            field: "target.kind",
            type: "FieldValueNotSupported",
            value: kind,
            supported: ["Node", "<empty>"],
          },
        ]);
      }
      const pods = registryOf(resources, "", "pods");
      const annotations = asObject(asObject(body.metadata)?.annotations) ?? {};
      await pods.update(
        namespace,
        podName,
        (pod) => {
          if (!pod) throw errors.notFound(PODS, podName);
          const meta = asObject(pod.metadata) ?? {};
          if (asString(meta.deletionTimestamp)) {
            throw errors.conflict(
              { group: "", resource: "pods/binding" },
              podName,
              "pod is being deleted, cannot be assigned to a host",
            );
          }
          const spec = asObject(pod.spec) ?? {};
          const current = asString(spec.nodeName);
          if (current !== "") {
            throw errors.conflict(
              { group: "", resource: "pods/binding" },
              podName,
              `pod ${podName} is already assigned to node "${current}"`,
            );
          }
          spec.nodeName = node;
          if (Object.keys(annotations).length > 0) {
            meta.annotations = { ...(asObject(meta.annotations) ?? {}), ...annotations };
          }
          const status = asObject(pod.status) ?? {};
          const conditions = asArray(status.conditions).filter(
            (c) => asString(asObject(c)?.type) !== "PodScheduled",
          );
          conditions.push({
            type: "PodScheduled",
            status: "True",
            lastProbeTime: null,
            lastTransitionTime: now(),
          });
          status.conditions = conditions;
          pod.status = status;
          return pod;
        },
        // The binding subresource writes what it set here and leaves the rest alone.
        { createIfMissing: false, subresource: "binding" },
      );
      return SUCCESS(201);
    },
  };
}

/**
 * `POST namespaces/<ns>/bindings`: the older form of the binding subresource, still served by
 * upstream, with the pod named by the Binding's own `metadata.name`.
 */
export function legacyBindings(resources: ResourceTable): VirtualResource {
  const binding = podBindingAction(resources);
  return {
    schema: binding.schema,
    async create(ctx, body, version, namespace) {
      const name = asString(asObject(body.metadata)?.name);
      if (name === "") throw errors.badRequest("resource name may not be empty");
      return binding.create(ctx, body, version, namespace, name);
    },
  };
}

function now(): string {
  return `${new Date().toISOString().slice(0, 19)}Z`;
}

/** A policy/v1 selector: an empty one selects every pod, an absent or broken one none. */
function selects(selector: unknown, labels: Record<string, string>): boolean {
  if (!asObject(selector)) return false;
  try {
    return labelSelectorFromObject(selector).matches(labels);
  } catch (err) {
    if (err instanceof SelectorParseError) return false;
    throw err;
  }
}

function tooManyRequests(message: string, cause: string): ApiError {
  return new ApiError(429, "TooManyRequests", message, {
    causes: [{ reason: "DisruptionBudget", message: cause }],
  });
}

/**
 * `POST pods/<name>/eviction`: a pod that is not running is deleted at once; a running pod only
 * when the one PodDisruptionBudget selecting it allows a disruption, which is then counted in
 * the budget's status.
 */
export function podEvictionAction(resources: ResourceTable): VirtualResource {
  return {
    schema: {
      ...reviewSchema({ group: "policy", versions: [{ name: "v1", served: true }], kind: "Eviction" }),
      namespaced: true,
    },
    async create(_ctx, body, _version, namespace, name) {
      const podName = name ?? "";
      const bodyName = asString(asObject(body.metadata)?.name);
      if (bodyName !== "" && bodyName !== podName) {
        throw errors.badRequest(`name in URL does not match name in Eviction object`);
      }
      const pods = registryOf(resources, "", "pods");
      let pod: JsonObject;
      try {
        pod = JSON.parse((await pods.get(namespace, podName)).json) as JsonObject;
      } catch (err) {
        if (err instanceof RegistryError && err.reason === "NotFound") throw errors.notFound(PODS, podName);
        throw err;
      }
      const options = asObject(body.deleteOptions) ?? {};
      const dryRun = asArray(options.dryRun).includes("All");
      const meta = asObject(pod.metadata) ?? {};
      const phase = asString(asObject(pod.status)?.phase);
      const exempt =
        phase === "Succeeded" ||
        phase === "Failed" ||
        phase === "Pending" ||
        asString(meta.deletionTimestamp) !== "";
      if (!exempt) {
        const budgets = registryOf(resources, "policy", "poddisruptionbudgets");
        const labels = Object.fromEntries(
          Object.entries(asObject(meta.labels) ?? {}).map(([k, v]) => [k, asString(v)]),
        );
        const listed = await budgets.list(namespace, {});
        const matching = listed.items
          .map((i) => JSON.parse(i.json) as JsonObject)
          .filter((b) => selects(asObject(b.spec)?.selector, labels));
        if (matching.length > 1) {
          throw errors.internal(
            "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.",
          );
        }
        const budget = matching[0];
        if (budget) {
          const budgetName = asString(asObject(budget.metadata)?.name);
          await budgets.update(
            namespace,
            budgetName,
            (current) => {
              if (!current)
                throw errors.notFound({ group: "policy", resource: "poddisruptionbudgets" }, budgetName);
              const status = asObject(current.status) ?? {};
              const generation = Number(asObject(current.metadata)?.generation ?? 0);
              if (Number(status.observedGeneration ?? -1) < generation) {
                throw tooManyRequests(
                  "Cannot evict pod as it would violate the pod's disruption budget.",
                  `The disruption budget ${budgetName} is still being processed by the server.`,
                );
              }
              const allowed = Number(status.disruptionsAllowed ?? 0);
              if (allowed <= 0) {
                throw tooManyRequests(
                  "Cannot evict pod as it would violate the pod's disruption budget.",
                  `The disruption budget ${budgetName} needs ${Number(status.desiredHealthy ?? 0)} healthy pods and has ${Number(status.currentHealthy ?? 0)} currently`,
                );
              }
              status.disruptionsAllowed = allowed - 1;
              status.disruptedPods = { ...(asObject(status.disruptedPods) ?? {}), [podName]: now() };
              current.status = status;
              return current;
            },
            { createIfMissing: false, subresource: "status", dryRun },
          );
        }
      }
      const uid = asString(asObject(options.preconditions)?.uid);
      const rv = asString(asObject(options.preconditions)?.resourceVersion);
      // The eviction's grace period reaches the pod's delete, a negative one read as one second.
      const grace = options.gracePeriodSeconds;
      await pods.delete(namespace, podName, {
        dryRun,
        ...(typeof grace === "number" ? { gracePeriodSeconds: grace < 0 ? 1 : grace } : {}),
        ...(uid || rv
          ? { preconditions: { ...(uid ? { uid } : {}), ...(rv ? { resourceVersion: rv } : {}) } }
          : {}),
      });
      return SUCCESS(201);
    },
  };
}
