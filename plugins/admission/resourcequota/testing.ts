// Objects and a bounded poll shared by the ResourceQuota test files.
import type { JsonObject } from "../index.ts";

export const pod = (name: string, ns: string, resources?: JsonObject, spec: JsonObject = {}): JsonObject => ({
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name, namespace: ns },
  spec: { containers: [{ name: "c", image: "nginx", ...(resources ? { resources } : {}) }], ...spec },
});

export const quota = (
  name: string,
  ns: string,
  hard: Record<string, string>,
  spec: JsonObject = {},
): JsonObject => ({
  apiVersion: "v1",
  kind: "ResourceQuota",
  metadata: { name, namespace: ns },
  spec: { hard, ...spec },
});

/** Polls (bounded) until `probe` gives a value. */
export async function until<T>(what: string, probe: () => Promise<T | undefined>): Promise<T> {
  for (let i = 0; i < 200; i++) {
    const v = await probe();
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
}
