// Which objects each node needs, kept in memory from pod (and claim) events. Every bound pod adds
// its references to its node's counted set, so a decision is one or two map lookups; a pod that
// changes, moves or goes away takes its references back.

import { asObject as obj, asString as str } from "../../../backends/common/json.ts";
import { podReferences } from "./pod-references.ts";

type Json = Record<string, unknown>;

/** The kinds of object a node can be related to. */
export type VertexType =
  | "pod"
  | "secret"
  | "configmap"
  | "persistentvolumeclaim"
  | "persistentvolume"
  | "serviceaccount";

// Names never hold NUL, so the joined key is unambiguous.
function vertex(type: VertexType, namespace: string, name: string): string {
  return `${type}\0${namespace}\0${name}`;
}

function objectKey(namespace: string, name: string): string {
  return `${namespace}\0${name}`;
}

interface BoundPod {
  readonly node: string;
  readonly vertices: readonly string[];
}

export class NodeGraph {
  /** Bound pods by namespace and name. */
  readonly #pods = new Map<string, BoundPod>();
  /** Per node: the objects its pods reference, with how many pods reference each. */
  readonly #needs = new Map<string, Map<string, number>>();
  /** A claim's bound volume, by claim namespace and name. */
  readonly #claimVolume = new Map<string, string>();
  /** The claims bound to each volume. */
  readonly #volumeClaims = new Map<string, Set<string>>();

  /** Adds or replaces a pod; a pod not bound to a node takes nothing. */
  setPod(pod: Json): void {
    const meta = obj(pod.metadata) ?? {};
    const namespace = str(meta.namespace);
    const name = str(meta.name);
    if (name === "") return;
    const key = objectKey(namespace, name);
    this.#release(key);
    const node = str(obj(pod.spec)?.nodeName);
    if (node === "") return;
    const refs = podReferences(pod);
    const vertices = [vertex("pod", namespace, name)];
    for (const s of refs.secrets) vertices.push(vertex("secret", namespace, s));
    for (const c of refs.configMaps) vertices.push(vertex("configmap", namespace, c));
    for (const c of refs.claims) vertices.push(vertex("persistentvolumeclaim", namespace, c));
    if (refs.serviceAccount !== "") vertices.push(vertex("serviceaccount", namespace, refs.serviceAccount));
    let needs = this.#needs.get(node);
    if (!needs) {
      needs = new Map();
      this.#needs.set(node, needs);
    }
    for (const v of vertices) needs.set(v, (needs.get(v) ?? 0) + 1);
    this.#pods.set(key, { node, vertices });
  }

  deletePod(pod: Json): void {
    const meta = obj(pod.metadata) ?? {};
    this.#release(objectKey(str(meta.namespace), str(meta.name)));
  }

  #release(key: string): void {
    const bound = this.#pods.get(key);
    if (!bound) return;
    this.#pods.delete(key);
    const needs = this.#needs.get(bound.node);
    if (!needs) return;
    for (const v of bound.vertices) {
      const n = (needs.get(v) ?? 0) - 1;
      if (n > 0) needs.set(v, n);
      else needs.delete(v);
    }
    if (needs.size === 0) this.#needs.delete(bound.node);
  }

  /** Records which volume a claim is bound to (`spec.volumeName`). */
  setClaim(claim: Json): void {
    const meta = obj(claim.metadata) ?? {};
    const key = objectKey(str(meta.namespace), str(meta.name));
    this.deleteClaim(claim);
    const volume = str(obj(claim.spec)?.volumeName);
    if (volume === "") return;
    this.#claimVolume.set(key, volume);
    let claims = this.#volumeClaims.get(volume);
    if (!claims) {
      claims = new Set();
      this.#volumeClaims.set(volume, claims);
    }
    claims.add(key);
  }

  deleteClaim(claim: Json): void {
    const meta = obj(claim.metadata) ?? {};
    const key = objectKey(str(meta.namespace), str(meta.name));
    const volume = this.#claimVolume.get(key);
    if (volume === undefined) return;
    this.#claimVolume.delete(key);
    const claims = this.#volumeClaims.get(volume);
    claims?.delete(key);
    if (claims?.size === 0) this.#volumeClaims.delete(volume);
  }

  /**
   * Whether a pod bound to `node` references the object; a volume counts when a claim bound to
   * it is referenced.
   */
  related(node: string, type: VertexType, namespace: string, name: string): boolean {
    const needs = this.#needs.get(node);
    if (!needs) return false;
    if (type !== "persistentvolume") return needs.has(vertex(type, namespace, name));
    for (const claim of this.#volumeClaims.get(name) ?? []) {
      const [claimNamespace = "", claimName = ""] = claim.split("\0");
      if (needs.has(vertex("persistentvolumeclaim", claimNamespace, claimName))) return true;
    }
    return false;
  }

  /** How many bound pods the graph holds (for tests and metrics). */
  get podCount(): number {
    return this.#pods.size;
  }
}
