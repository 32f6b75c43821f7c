// Lets protected volumes go once nothing needs them: a PersistentVolumeClaim being deleted loses
// its protection finalizer when no running pod uses it; a PersistentVolume being deleted loses its
// own when it is not bound. The StorageObjectInUseProtection admission plugin adds the finalizers.
import type { ControllerClient } from "../client.ts";
import { Informer, type InformerObject } from "../informer.ts";

interface Meta {
  name: string;
  namespace?: string;
  resourceVersion?: string;
  deletionTimestamp?: string;
  finalizers?: string[];
}

interface PodVolume {
  name?: string;
  persistentVolumeClaim?: { claimName?: string };
  ephemeral?: unknown;
}

/** Claims a pod holds while it may still run: named claims and its generic ephemeral volumes. */
function claimsOf(pod: InformerObject): string[] {
  const phase = (pod.status as { phase?: string } | undefined)?.phase;
  if (phase === "Succeeded" || phase === "Failed") return [];
  const volumes = ((pod.spec as { volumes?: PodVolume[] } | undefined)?.volumes ?? []).filter(Boolean);
  const out: string[] = [];
  for (const v of volumes) {
    if (v.persistentVolumeClaim?.claimName) out.push(v.persistentVolumeClaim.claimName);
    else if (v.ephemeral && v.name) out.push(`${pod.metadata.name}-${v.name}`);
  }
  return out;
}

export class StorageProtectionController {
  readonly #client: ControllerClient;
  readonly #pvcFinalizer: string;
  readonly #pvFinalizer: string;
  readonly #onError: (err: unknown, context: string) => void;
  readonly #claims: Informer;
  readonly #volumes: Informer;
  readonly #pods: Informer;
  /** Running pods by namespace/name, and the claims each uses. */
  readonly #podClaims = new Map<string, { namespace: string; claims: string[] }>();
  /** Claims being deleted, by namespace/name. */
  readonly #terminating = new Map<string, InformerObject>();

  constructor(
    client: ControllerClient,
    finalizers: { readonly pvc: string; readonly pv: string },
    onError: (err: unknown, context: string) => void,
  ) {
    this.#client = client;
    this.#pvcFinalizer = finalizers.pvc;
    this.#pvFinalizer = finalizers.pv;
    this.#onError = onError;
    this.#pods = new Informer(
      client,
      "/api/v1/pods",
      {
        upsert: (pod) => {
          const ns = pod.metadata.namespace ?? "";
          this.#podClaims.set(`${ns}/${pod.metadata.name}`, { namespace: ns, claims: claimsOf(pod) });
          return this.#recheck(ns);
        },
        deleted: (pod) => {
          const ns = pod.metadata.namespace ?? "";
          this.#podClaims.delete(`${ns}/${pod.metadata.name}`);
          return this.#recheck(ns);
        },
      },
      (err) => onError(err, "pod informer"),
    );
    this.#claims = new Informer(
      client,
      "/api/v1/persistentvolumeclaims",
      {
        upsert: (pvc) => this.#claimChanged(pvc),
        deleted: (pvc) => {
          this.#terminating.delete(`${pvc.metadata.namespace ?? ""}/${pvc.metadata.name}`);
        },
      },
      (err) => onError(err, "claim informer"),
    );
    this.#volumes = new Informer(
      client,
      "/api/v1/persistentvolumes",
      { upsert: (pv) => this.#volumeChanged(pv) },
      (err) => onError(err, "volume informer"),
    );
  }

  get synced(): boolean {
    return this.#pods.synced && this.#claims.synced && this.#volumes.synced;
  }

  async run(signal: AbortSignal): Promise<void> {
    await Promise.all([this.#pods.run(signal), this.#claims.run(signal), this.#volumes.run(signal)]);
  }

  #claimChanged(pvc: InformerObject): Promise<void> | undefined {
    const m = pvc.metadata as Meta;
    const key = `${m.namespace ?? ""}/${m.name}`;
    if (!m.deletionTimestamp || !m.finalizers?.includes(this.#pvcFinalizer)) {
      this.#terminating.delete(key);
      return undefined;
    }
    this.#terminating.set(key, pvc);
    return this.#release(pvc);
  }

  async #recheck(namespace: string): Promise<void> {
    for (const pvc of [...this.#terminating.values()]) {
      if (pvc.metadata.namespace === namespace) await this.#release(pvc);
    }
  }

  #inUse(namespace: string, claim: string): boolean {
    // Until pods are listed, every claim counts as used.
    if (!this.#pods.synced) return true;
    for (const p of this.#podClaims.values())
      if (p.namespace === namespace && p.claims.includes(claim)) return true;
    return false;
  }

  async #release(pvc: InformerObject): Promise<void> {
    const m = pvc.metadata as Meta;
    if (this.#inUse(m.namespace ?? "", m.name)) return;
    const path = `/api/v1/namespaces/${encodeURIComponent(m.namespace ?? "")}/persistentvolumeclaims/${encodeURIComponent(m.name)}`;
    await this.#dropFinalizer(path, m, this.#pvcFinalizer, `claim ${m.namespace}/${m.name}`);
  }

  #volumeChanged(pv: InformerObject): Promise<void> | undefined {
    const m = pv.metadata as Meta;
    if (!m.deletionTimestamp || !m.finalizers?.includes(this.#pvFinalizer)) return undefined;
    if ((pv.status as { phase?: string } | undefined)?.phase === "Bound") return undefined;
    const path = `/api/v1/persistentvolumes/${encodeURIComponent(m.name)}`;
    return this.#dropFinalizer(path, m, this.#pvFinalizer, `volume ${m.name}`);
  }

  async #dropFinalizer(path: string, m: Meta, finalizer: string, what: string): Promise<void> {
    try {
      const reply = await this.#client.call(
        "PATCH",
        path,
        {
          metadata: {
            resourceVersion: m.resourceVersion,
            finalizers: (m.finalizers ?? []).filter((f) => f !== finalizer),
          },
        },
        "application/merge-patch+json",
      );
      // 404: gone already; 409: changed meanwhile, the informer brings the new state here.
      if (reply.status >= 300 && reply.status !== 404 && reply.status !== 409)
        throw new Error(`releasing ${what}: ${reply.status} ${JSON.stringify(reply.body)}`);
    } catch (err) {
      this.#onError(err, `releasing ${what}`);
    }
  }
}
