// scheduling/v1: PriorityClass, a name for an integer pod priority.
import { f, pkg, required, t } from "./model.ts";

export const SCHEDULING_V1 = pkg("scheduling/v1", "k8s.io.api.scheduling.v1", {
  PriorityClass: t("Gives a name to a pod priority value; pods refer to the name and get the value.", {
    metadata: f(1, "meta/v1.ObjectMeta", "The object's metadata: name, labels, annotations and so on."),
    value: f(
      2,
      "int32",
      "The priority that pods naming this class receive; higher values are more important.",
      { ...required, omitEmpty: false },
    ),
    globalDefault: f(
      3,
      "bool",
      "Whether pods that name no class get this one. Only one class should set it; if several do, the lowest value among them wins.",
    ),
    description: f(4, "string", "Free-form text explaining when to use this class."),
    preemptionPolicy: f(
      5,
      "string",
      "Whether pods of this class may evict lower-priority pods: PreemptLowerPriority (the default) or Never.",
      { enum: ["Never", "PreemptLowerPriority"], pointer: true },
    ),
  }),
});
