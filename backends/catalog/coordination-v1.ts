// coordination/v1: Lease, the record components use for leader election and node heartbeats.
import { f, pkg, t } from "./model.ts";

export const COORDINATION_V1 = pkg("coordination/v1", "k8s.io.api.coordination.v1", {
  Lease: t("A lease held by one holder at a time, renewed to keep it and taken over when it lapses.", {
    metadata: f(1, "meta/v1.ObjectMeta", "The object's metadata: name, namespace, labels and so on."),
    spec: f(2, "LeaseSpec", "Who holds the lease and for how long."),
  }),
  LeaseSpec: t("The holder of a lease and its timing.", {
    holderIdentity: f(1, "string", "Identity of the current holder.", { pointer: true }),
    leaseDurationSeconds: f(
      2,
      "int32",
      "How long, in seconds after the last renewal, other candidates wait before they may take the lease over.",
      { pointer: true },
    ),
    acquireTime: f(3, "microTime", "When the current holder acquired the lease.", { pointer: true }),
    renewTime: f(4, "microTime", "When the current holder last renewed the lease.", { pointer: true }),
    leaseTransitions: f(5, "int32", "How many times the lease has changed holders.", { pointer: true }),
  }),
});
