// NodeRestriction: a kubelet (`system:node:<name>` in `system:nodes`) may only touch its own Node,
// its own pods (creating only mirror pods), and objects tied to them.

import { objectOrEmpty as obj } from "../../../backends/common/json.ts";
import type { AdmissionPlugin, Attributes, PluginEnv, PluginRegistration } from "../contract.ts";
import { AdmissionError, forbidden } from "../errors.ts";

type Obj = Record<string, unknown>;
const list = (v: unknown): Obj[] => (Array.isArray(v) ? v.map(obj) : []);

const sorted = (o: Obj): [string, unknown][] => Object.entries(o).sort(([x], [y]) => (x < y ? -1 : 1));
const notFound = (name: string) =>
  new AdmissionError(404, "NotFound", `pods "${name}" not found`, { name, group: "", kind: "pods" });

/** The node a user acts for, or undefined when the user is not a kubelet. */
export function nodeName(user: {
  readonly username: string;
  readonly groups: readonly string[];
}): string | undefined {
  if (!user.groups.includes("system:nodes") || !user.username.startsWith("system:node:")) return undefined;
  const name = user.username.slice("system:node:".length);
  return name || undefined;
}

export function nodeRestriction(env: PluginEnv): AdmissionPlugin {
  const n = env.naming;
  const mirrorKey = n.label("config.mirror");
  const restrictedPrefix = `node-restriction.${n.labelDomain}/`;
  const domain = n.labelDomain;
  const k8s = n.groupSuffix;

  /** Upstream's kubelet label rules, with the domain mapped through naming. */
  function kubeletMaySet(key: string): boolean {
    const slash = key.indexOf("/");
    if (slash < 0) return true;
    const prefix = key.slice(0, slash);
    if (
      [`${domain}/hostname`, `${domain}/arch`, `${domain}/os`, `node.${domain}/instance-type`].includes(key)
    )
      return true;
    for (const allowed of [
      `beta.${domain}`,
      `failure-domain.beta.${domain}`,
      `topology.${domain}`,
      `kubelet.${domain}`,
      `node.${domain}`,
    ])
      if (prefix === allowed || prefix.endsWith(`.${allowed}`)) return true;
    const own =
      prefix === domain || prefix.endsWith(`.${domain}`) || prefix === k8s || prefix.endsWith(`.${k8s}`);
    return !own;
  }

  async function getPod(ns: string, name: string): Promise<Obj | undefined> {
    return (await env.objects.get({ group: "", resource: "pods" }, ns, name)) as Obj | undefined;
  }

  async function admitPod(a: Attributes, node: string): Promise<void> {
    const sub = a.subresource;
    if (sub === "") {
      if (a.operation === "CREATE") return admitMirrorCreate(a, node);
      if (a.operation === "DELETE") {
        const pod = await getPod(a.namespace, a.name);
        if (!pod) throw notFound(a.name);
        if (obj(pod.spec).nodeName !== node)
          throw forbidden(a, `node "${node}" can only delete pods with spec.nodeName set to itself`);
        return;
      }
      throw forbidden(
        a,
        `unexpected operation "${a.operation}", node "${node}" can only create and delete mirror pods`,
      );
    }
    if (sub === "status") {
      const pod = a.oldObject ?? (await getPod(a.namespace, a.name));
      if (!pod || obj(obj(pod).spec).nodeName !== node)
        throw forbidden(
          a,
          `node "${node}" can only update pod status for pods with spec.nodeName set to itself`,
        );
      const labelsNow = JSON.stringify(sorted(obj(obj(obj(a.object).metadata).labels)));
      if (a.object && labelsNow !== JSON.stringify(sorted(obj(obj(obj(pod).metadata).labels))))
        throw forbidden(a, `node "${node}" cannot update labels through pod status`);
      return;
    }
    if (sub === "eviction") {
      const pod = await getPod(a.namespace, a.name);
      if (!pod) throw notFound(a.name);
      if (obj(pod.spec).nodeName !== node)
        throw forbidden(a, `node ${node} can only evict pods with spec.nodeName set to itself`);
      return;
    }
    throw forbidden(
      a,
      `unexpected pod subresource "${sub}", node "${node}" can only update pod status and evict pods`,
    );
  }

  function admitMirrorCreate(a: Attributes, node: string): void {
    const pod = obj(a.object);
    const meta = obj(pod.metadata);
    const spec = obj(pod.spec);
    if (obj(meta.annotations)[mirrorKey] === undefined)
      throw forbidden(
        a,
        `pod does not have "${mirrorKey}" annotation, node "${node}" can only create mirror pods`,
      );
    if (spec.nodeName !== node)
      throw forbidden(a, `node "${node}" can only create pods with spec.nodeName set to itself`);
    const owners = list(meta.ownerReferences);
    if (owners.length > 1)
      throw forbidden(a, `node "${node}" can only create pods with a single owner reference set to itself`);
    const owner = owners[0];
    if (owner) {
      if (owner.apiVersion !== "v1" || owner.kind !== "Node" || owner.name !== node)
        throw forbidden(a, `node "${node}" can only create pods with an owner reference set to itself`);
      if (owner.controller !== true)
        throw forbidden(
          a,
          `node "${node}" can only create pods with a controller owner reference set to itself`,
        );
      if (owner.blockOwnerDeletion === true)
        throw forbidden(a, `node "${node}" must not set blockOwnerDeletion on an owner reference`);
    }
    if (spec.serviceAccountName)
      throw forbidden(a, `node "${node}" can not create pods that reference a service account`);
    const volumes = list(spec.volumes);
    const containers = [
      ...list(spec.containers),
      ...list(spec.initContainers),
      ...list(spec.ephemeralContainers),
    ];
    const envs = containers.flatMap((c) => [...list(c.env).map((e) => obj(e.valueFrom)), ...list(c.envFrom)]);
    const projected = volumes.flatMap((v) => list(obj(v.projected).sources));
    if (
      volumes.some((v) => v.secret) ||
      projected.some((s) => s.secret) ||
      envs.some((e) => e.secretKeyRef || e.secretRef) ||
      list(spec.imagePullSecrets).length > 0
    )
      throw forbidden(a, `node "${node}" can not create pods that reference secrets`);
    if (
      volumes.some((v) => v.configMap) ||
      projected.some((s) => s.configMap) ||
      envs.some((e) => e.configMapKeyRef || e.configMapRef)
    )
      throw forbidden(a, `node "${node}" can not create pods that reference configmaps`);
    if (volumes.some((v) => v.persistentVolumeClaim || v.ephemeral))
      throw forbidden(a, `node "${node}" can not create pods that reference persistentvolumeclaims`);
  }

  function admitNode(a: Attributes, node: string): void {
    const requested = a.name || String(obj(obj(a.object).metadata).name ?? "");
    if (requested !== node) throw forbidden(a, `node "${node}" is not allowed to modify node "${requested}"`);
    if (a.operation === "CREATE") {
      const labels = Object.keys(obj(obj(obj(a.object).metadata).labels));
      const bad = labels.filter((k) => k.startsWith(restrictedPrefix) || !kubeletMaySet(k)).sort();
      if (bad.length)
        throw forbidden(a, `node "${node}" is not allowed to set the following labels: ${bad.join(", ")}`);
    }
    if (a.operation === "UPDATE" && a.object && a.oldObject) {
      if (
        JSON.stringify(obj(a.object.spec).taints ?? []) !== JSON.stringify(obj(a.oldObject.spec).taints ?? [])
      )
        throw forbidden(a, `node "${node}" is not allowed to modify taints`);
      const now = obj(obj(a.object.metadata).labels);
      const was = obj(obj(a.oldObject.metadata).labels);
      const changed = [...new Set([...Object.keys(now), ...Object.keys(was)])].filter(
        (k) => now[k] !== was[k],
      );
      const bad = changed.filter((k) => k.startsWith(restrictedPrefix) || !kubeletMaySet(k)).sort();
      if (bad.length) throw forbidden(a, `is not allowed to modify labels: ${bad.join(", ")}`);
    }
  }

  async function admitToken(a: Attributes, node: string): Promise<void> {
    if (a.operation !== "CREATE") return;
    const bound = obj(obj(obj(a.object).spec).boundObjectRef);
    if (bound.apiVersion !== "v1" || bound.kind !== "Pod" || !bound.name)
      throw forbidden(a, "node requested token not bound to a pod");
    if (!bound.uid) throw forbidden(a, "node requested token with a pod binding without a uid");
    const pod = await getPod(a.namespace, String(bound.name ?? ""));
    if (!pod) throw notFound(String(bound.name));
    if (obj(pod.metadata).uid !== bound.uid)
      throw forbidden(
        a,
        `the UID in the bound object reference (${String(bound.uid)}) does not match the UID in record. The object might have been deleted and then recreated`,
      );
    if (obj(pod.spec).nodeName !== node)
      throw forbidden(a, "node requested token bound to a pod scheduled on a different node");
  }

  return {
    name: "NodeRestriction",
    async admit(a) {
      const node = nodeName(a.user);
      if (node === undefined) return;
      const { group, resource } = a.resource;
      if (group === "" && resource === "pods") return admitPod(a, node);
      if (group === "" && resource === "nodes") return admitNode(a, node);
      if (group === "" && resource === "serviceaccounts" && a.subresource === "token")
        return admitToken(a, node);
      if (group === n.group("coordination") && resource === "leases") {
        if (a.namespace !== n.nodeLeaseNamespace)
          throw forbidden(a, `can only access leases in the "${n.nodeLeaseNamespace}" system namespace`);
        if (a.name !== node && String(obj(obj(a.object).metadata).name ?? "") !== node)
          throw forbidden(a, "can only access node lease with the same name as the requesting node");
        return;
      }
      if (group === n.group("storage") && resource === "csinodes") {
        const requested = a.name || String(obj(obj(a.object).metadata).name ?? "");
        if (requested !== node)
          throw forbidden(a, `node "${node}" is not allowed to modify object "${requested}"`);
        return;
      }
      if (
        group === "" &&
        resource === "persistentvolumeclaims" &&
        a.subresource === "status" &&
        a.object &&
        a.oldObject
      ) {
        // Only the resize fields (status.capacity, status.conditions) may change.
        const strip = (o: Obj) => {
          const s = { ...obj(o.status) };
          delete s.capacity;
          delete s.conditions;
          const m = { ...obj(o.metadata) };
          delete m.resourceVersion;
          delete m.managedFields;
          return JSON.stringify({ ...o, metadata: m, status: s });
        };
        if (strip(a.object) !== strip(a.oldObject))
          throw forbidden(
            a,
            `node "${node}" is not allowed to update fields other than status.capacity and status.conditions`,
          );
      }
    },
  };
}

export const registration: PluginRegistration = { name: "NodeRestriction", factory: nodeRestriction };
