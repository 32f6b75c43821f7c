// The request's namespace as the namespace plugins see it: from the informer when it has it,
// otherwise read again at the latest revision (a namespace created just before must count).
import type { PluginEnv } from "../contract.ts";
import { AdmissionError } from "../errors.ts";

export interface NamespaceState {
  readonly metadata: { readonly name: string; readonly deletionTimestamp?: string };
  readonly status?: { readonly phase?: string };
}

export const NAMESPACES = { group: "", resource: "namespaces" } as const;

export async function findNamespace(env: PluginEnv, name: string): Promise<NamespaceState | undefined> {
  const cached = env.objects.informer(NAMESPACES)?.get(undefined, name);
  if (cached) return cached as unknown as NamespaceState;
  return (await env.objects.get(NAMESPACES, undefined, name)) as unknown as NamespaceState | undefined;
}

/** Upstream's NotFound for the namespace itself: `namespaces "x" not found`. */
export function namespaceNotFound(name: string): AdmissionError {
  return new AdmissionError(404, "NotFound", `namespaces "${name}" not found`, {
    name,
    group: "",
    kind: "namespaces",
  });
}
