// policy/v1: PodDisruptionBudget, which limits how many pods of an application voluntary
// disruptions may take down at once, and Eviction, the request that honours those budgets.
import { f, mapList, mergeBy, pkg, t } from "./model.ts";

// Allowed values of upstream's enumerated string types, as its OpenAPI lists them (sorted).
const UNHEALTHY_POD_EVICTION_POLICIES = ["AlwaysAllow", "IfHealthyBudget"];

export const POLICY_V1 = pkg("policy/v1", "k8s.io.api.policy.v1", {
  Eviction: t(
    "A request to remove a pod from its node that is refused when it would break a disruption budget. Sent to a pod's eviction subresource.",
    {
      metadata: f(1, "meta/v1.ObjectMeta", "Names the pod to evict."),
      deleteOptions: f(2, "meta/v1.DeleteOptions", "Options for the deletion the eviction performs.", {
        pointer: true,
      }),
    },
  ),
  PodDisruptionBudget: t(
    "Caps how many pods of a set voluntary disruptions, such as evictions during a node drain, may take down at the same time.",
    {
      metadata: f(
        1,
        "meta/v1.ObjectMeta",
        "The object's metadata: name, namespace, labels, annotations and so on.",
      ),
      spec: f(2, "PodDisruptionBudgetSpec", "The pods covered and how many of them must stay up."),
      status: f(3, "PodDisruptionBudgetStatus", "What the disruption controller last observed."),
    },
  ),
  PodDisruptionBudgetSpec: t("The pods a budget covers and the disruption it allows.", {
    minAvailable: f(
      1,
      "intOrString",
      'How many selected pods must remain available after an eviction, as a number or a percentage; "100%" blocks every voluntary eviction. Cannot be combined with maxUnavailable.',
      { pointer: true },
    ),
    selector: f(
      2,
      "meta/v1.LabelSelector",
      "The pods the budget covers. Unset selects no pods; an empty selector selects every pod in the namespace.",
      { patchStrategy: "replace", pointer: true },
    ),
    maxUnavailable: f(
      3,
      "intOrString",
      "How many selected pods may be unavailable after an eviction, as a number or a percentage; 0 blocks every voluntary eviction. Cannot be combined with minAvailable.",
      { pointer: true },
    ),
    unhealthyPodEvictionPolicy: f(
      4,
      "string",
      'When running but not-yet-ready pods may be evicted. "IfHealthyBudget" (the default): only while the application has at least desiredHealthy healthy pods. "AlwaysAllow": at any time, budget or not. Ready pods always obey the budget.',
      { enum: UNHEALTHY_POD_EVICTION_POLICIES, pointer: true },
    ),
  }),
  PodDisruptionBudgetStatus: t("What the disruption controller last observed; may lag behind reality.", {
    observedGeneration: f(
      1,
      "int64",
      "The generation of the budget this status describes; the rest of the status is only meaningful when it matches the object's generation.",
    ),
    disruptedPods: f(
      2,
      "{}time",
      "Pods whose eviction the server has accepted but the controller has not yet seen deleted, by pod name, with the time of the eviction. Entries expire after a while; a large map hints at pods that fail to delete.",
    ),
    disruptionsAllowed: f(3, "int32", "How many more pods may be disrupted right now.", { omitEmpty: false }),
    currentHealthy: f(4, "int32", "Selected pods that are healthy now.", { omitEmpty: false }),
    desiredHealthy: f(5, "int32", "The fewest healthy pods the budget accepts.", { omitEmpty: false }),
    expectedPods: f(6, "int32", "How many pods the budget counts in total.", { omitEmpty: false }),
    conditions: f(
      7,
      "[]meta/v1.Condition",
      'Conditions of the budget. The controller maintains "DisruptionAllowed", with reasons such as SufficientPods, InsufficientPods or SyncFailed.',
      { ...mergeBy("type"), ...mapList("type") },
    ),
  }),
});
