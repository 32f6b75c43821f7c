// How long a deleted Pod may take to stop, as upstream's pod strategy decides it: the grace period
// the request asks for, else the pod's own terminationGracePeriodSeconds; none (removed at once)
// for a pod no node has taken or one that has already finished. A kubelet ends the wait by
// deleting the pod again with a grace period of 0.
import { asObject, asString, type JsonObject } from "../common/json.ts";

const FINISHED = new Set(["Succeeded", "Failed"]);

export function podGracePeriod(pod: JsonObject, requested: number | undefined): number {
  const spec = asObject(pod.spec) ?? {};
  const own = spec.terminationGracePeriodSeconds;
  let period = requested ?? (typeof own === "number" ? own : 0);
  if (asString(spec.nodeName) === "") period = 0;
  if (FINISHED.has(asString(asObject(pod.status)?.phase))) period = 0;
  return period < 0 ? 1 : period;
}
