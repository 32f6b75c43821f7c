// networking/v1 defaults as upstream 1.27 applies them: NetworkPolicy policy types and port
// protocols, and the scope of an IngressClass's parameters.
import { defaultPointer, isNil, listLength, objectAt, structAt } from "./util.ts";
import type { TypeDefaulter } from "./walk.ts";

const networkPolicy: TypeDefaulter = (object) => {
  const spec = structAt(object, "spec");
  if (spec === undefined) return;
  const types = spec.policyTypes;
  // A policy that does not say what it governs governs ingress, and egress too when it has egress rules.
  if (listLength(types) === 0 && (isNil(types) || Array.isArray(types))) {
    spec.policyTypes = listLength(spec.egress) > 0 ? ["Ingress", "Egress"] : ["Ingress"];
  }
};

const ingressClass: TypeDefaulter = (object) => {
  const parameters = objectAt(objectAt(object.spec)?.parameters);
  if (parameters !== undefined) defaultPointer(parameters, "scope", "Cluster");
};

/** The networking/v1 defaulters by type id. */
export function networkingV1Defaulters(): Record<string, TypeDefaulter> {
  return {
    "networking/v1.NetworkPolicy": networkPolicy,
    "networking/v1.NetworkPolicyPort": (port) => defaultPointer(port, "protocol", "TCP"),
    "networking/v1.IngressClass": ingressClass,
  };
}
