// node/v1: RuntimeClass, a named container runtime configuration that pods can ask for.
import { atomic, f, pkg, required, t } from "./model.ts";

export const NODE_V1 = pkg("node/v1", "k8s.io.api.node.v1", {
  Overhead: t("Extra resources a pod consumes just by running under a runtime class.", {
    podFixed: f(
      1,
      "{}quantity",
      "Fixed amounts of each resource, such as cpu or memory, added to every pod.",
    ),
  }),
  RuntimeClass: t(
    "A container runtime configuration, set up on the nodes by an administrator, that pods select by name; the node agent resolves it before starting the pod.",
    {
      metadata: f(1, "meta/v1.ObjectMeta", "The object's metadata: name, labels, annotations and so on."),
      handler: f(
        2,
        "string",
        'The runtime handler the node\'s container runtime uses for pods of this class, such as "runc"; assumed to exist on every node. A lowercase DNS label that cannot be changed.',
        { ...required, omitEmpty: false },
      ),
      overhead: f(3, "Overhead", "Resources charged to each pod of this class on top of its containers.", {
        pointer: true,
      }),
      scheduling: f(
        4,
        "Scheduling",
        "Constraints that place pods of this class on nodes that support it; when unset, every node is assumed to.",
        { pointer: true },
      ),
    },
  ),
  Scheduling: t("Node constraints for pods that use a runtime class.", {
    nodeSelector: f(
      1,
      "{}string",
      "Labels a node must carry to run pods of this class; merged into the pod's own node selector, and conflicts reject the pod.",
      { mapType: "atomic" },
    ),
    tolerations: f(
      2,
      "[]core/v1.Toleration",
      "Tolerations added to pods of this class when they are admitted, skipping ones they already have.",
      atomic,
    ),
  }),
});
