// Whether a namespace exists and is not being deleted, from the informer's copy when there is one,
// otherwise read again: controllers that keep objects in every namespace stop at terminating ones.
import type { ControllerClient } from "./client.ts";
import type { InformerObject } from "./informer.ts";

export async function isActiveNamespace(
  client: ControllerClient,
  namespace: string,
  known: InformerObject | undefined,
): Promise<boolean> {
  let current = known;
  if (!current) {
    const reply = await client.call("GET", `/api/v1/namespaces/${encodeURIComponent(namespace)}`);
    if (reply.status !== 200) return false;
    current = reply.body as InformerObject;
  }
  const meta = current.metadata as { deletionTimestamp?: string };
  const phase = (current.status as { phase?: string } | undefined)?.phase;
  return !meta.deletionTimestamp && phase !== "Terminating";
}
