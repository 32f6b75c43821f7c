// Realistic objects for the benchmarks: Pod-like JSON of about 2.4 KB, the size BENCHMARKS.md's
// figures are measured with. Deterministic per index, with enough variation (names, labels, images,
// IPs, uids) that nothing downstream gets it cheaply from identical strings. Also the small measuring helpers
// (percentiles, /proc/self/status) that the benchmark and its worker processes share.

import { readFileSync, writeFileSync } from "node:fs";
import { listBodyChunks } from "../../gateway/handlers/list-body.ts";

/** The resource prefix the benchmarks store Pods under. */
export const POD_PREFIX = "/core/pods/";

/** The storage key of a Pod, `/core/pods/<namespace>/<name>`. */
export function podKey(namespace: string, name: string, prefix = POD_PREFIX): string {
  return `${prefix}${namespace}/${name}`;
}

/** A small deterministic PRNG (mulberry32). */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function hex(next: () => number, length: number): string {
  let out = "";
  while (out.length < length)
    out += Math.floor(next() * 0x100000000)
      .toString(16)
      .padStart(8, "0");
  return out.slice(0, length);
}

function uid(next: () => number): string {
  const h = hex(next, 32);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

const APPS = ["checkout", "payments", "catalog", "search", "frontend", "inventory", "ledger", "notifier"];
const TEAMS = ["core", "growth", "platform", "data"];

/** The pod-template-hash of the ReplicaSet that owns the Pod of `index` (64 ReplicaSets per app). */
function replicaSetHash(index: number): string {
  return hex(rng(Math.floor(index / APPS.length) % 64), 10);
}

/** A Pod's name: `<app>-<replicaset hash>-<suffix>`, unique per index. */
export function podName(index: number): string {
  const app = APPS[index % APPS.length] as string;
  return `${app}-${replicaSetHash(index)}-${index.toString(36).padStart(5, "0")}`;
}

export interface PodOptions {
  readonly namespace?: string;
  readonly name?: string;
}

/** A Pod object of about 2.4 KB once JSON-encoded. */
export function pod(index: number, options: PodOptions = {}): Record<string, unknown> {
  const next = rng(index + 1);
  const app = APPS[index % APPS.length] as string;
  const team = TEAMS[index % TEAMS.length] as string;
  const namespace = options.namespace ?? `ns-${index % 10}`;
  const name = options.name ?? podName(index);
  const hash = replicaSetHash(index);
  const node = `node-${(index % 50).toString().padStart(3, "0")}.cluster.internal`;
  const ip = `10.${(index >> 16) & 255}.${(index >> 8) & 255}.${index & 255}`;
  const created = new Date(Date.UTC(2025, 0, 1) + index * 1000).toISOString().replace(".000", "");
  const image = `registry.example.com/${team}/${app}:v1.${index % 30}.${Math.floor(next() * 100)}`;
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      name,
      generateName: `${app}-${hash}-`,
      namespace,
      uid: uid(next),
      creationTimestamp: created,
      labels: {
        app,
        team,
        "pod-template-hash": hash,
        "app.kubernetes.io/version": `1.${index % 30}`,
      },
      ownerReferences: [
        {
          apiVersion: "apps/v1",
          kind: "ReplicaSet",
          name: `${app}-${hash}`,
          uid: uid(next),
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
    },
    spec: {
      containers: [
        {
          name: app,
          image,
          args: ["--port=8080", "--metrics-port=9090", `--log-level=${index % 3 === 0 ? "debug" : "info"}`],
          ports: [
            { name: "http", containerPort: 8080, protocol: "TCP" },
            { name: "metrics", containerPort: 9090, protocol: "TCP" },
          ],
          env: [
            { name: "TEAM", value: team },
            { name: "GOMAXPROCS", value: "2" },
          ],
          resources: {
            limits: { cpu: "500m", memory: "512Mi" },
            requests: { cpu: `${100 + (index % 4) * 50}m`, memory: "256Mi" },
          },
          volumeMounts: [
            { name: "config", mountPath: "/etc/app", readOnly: true },
            {
              name: "kube-api-access",
              mountPath: "/var/run/secrets/kubernetes.io/serviceaccount",
              readOnly: true,
            },
          ],
          imagePullPolicy: "IfNotPresent",
        },
      ],
      volumes: [
        { name: "config", configMap: { name: `${app}-config`, defaultMode: 420 } },
        {
          name: "kube-api-access",
          projected: { defaultMode: 420, sources: [{ serviceAccountToken: { path: "token" } }] },
        },
      ],
      restartPolicy: "Always",
      terminationGracePeriodSeconds: 30,
      dnsPolicy: "ClusterFirst",
      serviceAccountName: "default",
      nodeName: node,
      schedulerName: "default-scheduler",
      priority: 0,
    },
    status: {
      phase: "Running",
      conditions: [
        { type: "Initialized", status: "True", lastTransitionTime: created },
        { type: "Ready", status: "True", lastTransitionTime: created },
        { type: "ContainersReady", status: "True", lastTransitionTime: created },
        { type: "PodScheduled", status: "True", lastTransitionTime: created },
      ],
      hostIP: `192.168.${index % 50}.${10 + (index % 200)}`,
      podIP: ip,
      podIPs: [{ ip }],
      startTime: created,
      containerStatuses: [
        {
          name: app,
          state: { running: { startedAt: created } },
          ready: true,
          restartCount: index % 7 === 0 ? 1 : 0,
          image,
          imageID: `registry.example.com/${team}/${app}@sha256:${hex(next, 64)}`,
          started: true,
        },
      ],
      qosClass: "Burstable",
    },
  };
}

/** The Pod of `index`, JSON-encoded (about 2.4 KB). */
export function podJson(index: number, options: PodOptions = {}): string {
  return JSON.stringify(pod(index, options));
}

/** Namespace, name and key of the Pod of `index`. */
export function podIdentity(
  index: number,
  prefix = POD_PREFIX,
): { namespace: string; name: string; key: string } {
  const namespace = `ns-${index % 10}`;
  const name = podName(index);
  return { namespace, name, key: podKey(namespace, name, prefix) };
}

function listHead(resourceVersion: string, continueToken: string | undefined): string {
  const meta =
    continueToken === undefined
      ? `{"resourceVersion":"${resourceVersion}"}`
      : `{"resourceVersion":"${resourceVersion}","continue":"${continueToken}"}`;
  return `{"kind":"PodList","apiVersion":"v1","metadata":${meta},"items":[`;
}

/**
 * The baseline page: a list response body joined from pre-serialized items into one string and
 * flattened to bytes in one go.
 */
export function listBody(
  itemsJson: readonly string[],
  resourceVersion: string,
  continueToken?: string,
): Buffer {
  return Buffer.from(`${listHead(resourceVersion, continueToken)}${itemsJson.join(",")}]}\n`);
}

/** Stands in for the socket: each piece is copied into native memory that is reused at once. */
let socketScratch = Buffer.allocUnsafe(256 * 1024);

/**
 * The same body as the server writes it (gateway/handlers/list-body.ts): pieces of about 64K
 * characters, each copied to the "socket" as it is made. Returns the bytes written.
 */
export function writeListPieces(
  itemsJson: readonly string[],
  resourceVersion: string,
  continueToken?: string,
): number {
  let bytes = 0;
  for (const piece of listBodyChunks(listHead(resourceVersion, continueToken), itemsJson, "]}\n")) {
    // As a socket's string write does: room for the worst case, then one encoding pass.
    if (piece.length * 3 > socketScratch.length) socketScratch = Buffer.allocUnsafe(piece.length * 3);
    bytes += socketScratch.write(piece);
  }
  return bytes;
}

if (import.meta.main) {
  const sizes = Array.from({ length: 1000 }, (_, i) => Buffer.byteLength(podJson(i)));
  const mean = sizes.reduce((a, b) => a + b, 0) / sizes.length;
  console.log(
    `Pod JSON: mean ${mean.toFixed(0)} B, min ${Math.min(...sizes)} B, max ${Math.max(...sizes)} B`,
  );
  console.log(podJson(0));
}

// ---- measuring helpers shared by the benchmark and its workers ----

/** The `p`-th percentile (0-100) of `values`, nearest rank; NaN when empty. */
export function percentile(values: ArrayLike<number>, p: number): number {
  const n = values.length;
  if (n === 0) return Number.NaN;
  const sorted = Float64Array.from(values).sort();
  const rank = Math.min(n - 1, Math.max(0, Math.ceil((p / 100) * n) - 1));
  return sorted[rank] as number;
}

export function median(values: ArrayLike<number>): number {
  return percentile(values, 50);
}

/** Collect garbage twice (the benchmark runs with --expose-gc); a no-op without it. */
export function collectGarbage(): void {
  globalThis.gc?.();
  globalThis.gc?.();
}

/** VmRSS and VmHWM of a process (this one by default), in bytes, from /proc/<pid>/status. */
export function procMemory(pid: number | "self" = "self"): { rss: number; hwm: number } {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = (field: string) =>
    Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? Number.NaN);
  return { rss: kb("VmRSS") * 1024, hwm: kb("VmHWM") * 1024 };
}

/** Reset a process's VmHWM to its current RSS (Linux clear_refs "5"); false when the kernel refuses. */
export function resetPeakRss(pid: number | "self" = "self"): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, "5");
    return true;
  } catch {
    return false;
  }
}
