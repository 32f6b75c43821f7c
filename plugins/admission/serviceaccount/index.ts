// ServiceAccount (spec "Service accounts"): defaults a pod's account, refuses unknown accounts,
// projects the API token volume into every container and copies the account's pull secrets.

import { asObject as obj } from "../../../backends/common/json.ts";
import type { AdmissionPlugin, Attributes, PluginEnv, PluginRegistration } from "../contract.ts";
import { forbidden } from "../errors.ts";

type Obj = Record<string, unknown>;

/** Upstream's prefix; clients look for it by name. */
export const VOLUME_PREFIX = "kube-api-access-";
/** Upstream's token lifetime: an hour plus a little, so clients refreshing hourly never hit expiry. */
export const TOKEN_EXPIRATION_SECONDS = 3607;

const list = (v: unknown): Obj[] => (Array.isArray(v) ? v.filter((x): x is Obj => obj(x) !== undefined) : []);

function randomSuffix(): string {
  const alphabet = "bcdfghjklmnpqrstvwxz2456789";
  let s = "";
  for (let i = 0; i < 5; i++) s += alphabet[Math.floor(Math.random() * alphabet.length)];
  return s;
}

/** Why a mirror pod is refused: it names an account, uses a secret or projects a token. */
function mirrorPodProblem(spec: Obj): string | undefined {
  if (typeof spec.serviceAccountName === "string" && spec.serviceAccountName !== "")
    return "a mirror pod may not reference service accounts";
  for (const v of list(spec.volumes)) {
    if (v.secret !== undefined) return "a mirror pod may not reference secrets";
    for (const source of list(obj(v.projected)?.sources)) {
      if (source.secret !== undefined) return "a mirror pod may not reference secrets";
      if (source.serviceAccountToken !== undefined)
        return "a mirror pod may not use ServiceAccountToken volume projections";
    }
  }
  const containers = [
    ...list(spec.initContainers),
    ...list(spec.containers),
    ...list(spec.ephemeralContainers),
  ];
  for (const c of containers) {
    if (list(c.envFrom).some((e) => e.secretRef !== undefined))
      return "a mirror pod may not reference secrets";
    if (list(c.env).some((e) => obj(e.valueFrom)?.secretKeyRef !== undefined))
      return "a mirror pod may not reference secrets";
  }
  return undefined;
}

function isPod(a: Attributes): boolean {
  return a.resource.group === "" && a.resource.resource === "pods" && a.subresource === "";
}

export function serviceAccount(env: PluginEnv): AdmissionPlugin {
  const mirrorKey = env.naming.label("config.mirror");
  const mountPath = `/var/run/secrets/${env.naming.labelDomain}/serviceaccount`;
  const enforceKey = env.naming.label("enforce-mountable-secrets");
  const accounts = { group: "", resource: "serviceaccounts" };

  async function lookup(ns: string, name: string): Promise<Obj | undefined> {
    return (await env.objects.get(accounts, ns, name)) as Obj | undefined;
  }

  return {
    name: "ServiceAccount",
    async admit(a) {
      if (!isPod(a) || a.operation !== "CREATE" || !a.object) return;
      const pod = a.object;
      const meta = obj(pod.metadata) ?? {};
      if (obj(meta.annotations)?.[mirrorKey] !== undefined) return;
      const spec = obj(pod.spec);
      if (!spec) return;
      let name = typeof spec.serviceAccountName === "string" ? spec.serviceAccountName : "";
      if (!name)
        name =
          typeof spec.serviceAccount === "string" && spec.serviceAccount ? spec.serviceAccount : "default";
      spec.serviceAccountName = name;
      spec.serviceAccount = name;
      const sa = await lookup(a.namespace, name);
      if (!sa)
        throw forbidden(
          a,
          `error looking up service account ${a.namespace}/${name}: serviceaccount "${name}" not found`,
        );
      const automount =
        typeof spec.automountServiceAccountToken === "boolean"
          ? spec.automountServiceAccountToken
          : sa.automountServiceAccountToken !== false;
      if (automount) mountToken(spec);
      if (list(spec.imagePullSecrets).length === 0) {
        const pulls = list(sa.imagePullSecrets).map((s) => ({ name: s.name }));
        if (pulls.length > 0) spec.imagePullSecrets = pulls;
      }
    },
    async validate(a) {
      if (!isPod(a) || a.operation !== "CREATE" || !a.object) return;
      const meta = obj(a.object.metadata) ?? {};
      const spec = obj(a.object.spec) ?? {};
      // Mirror pods are left unchanged, and may use neither accounts nor secrets (the kubelet
      // that made them cannot be trusted with either).
      if (obj(meta.annotations)?.[mirrorKey] !== undefined) {
        const why = mirrorPodProblem(spec);
        if (why) throw forbidden(a, why);
        return;
      }
      const name = typeof spec.serviceAccountName === "string" ? spec.serviceAccountName : "default";
      const sa = await lookup(a.namespace, name);
      if (!sa)
        throw forbidden(
          a,
          `error looking up service account ${a.namespace}/${name}: serviceaccount "${name}" not found`,
        );
      if (obj(obj(sa.metadata)?.annotations)?.[enforceKey] !== "true") return;
      const allowed = new Set(list(sa.secrets).map((s) => s.name));
      for (const v of list(spec.volumes)) {
        const secret = obj(v.secret)?.secretName;
        if (typeof secret === "string" && !allowed.has(secret))
          throw forbidden(
            a,
            `volume with secret.secretName="${secret}" is not allowed because service account ${name} does not reference that secret`,
          );
      }
      const pulls = new Set(list(sa.imagePullSecrets).map((s) => s.name));
      for (const s of list(spec.imagePullSecrets))
        if (!pulls.has(s.name))
          throw forbidden(
            a,
            `image pull secret with name="${String(s.name)}" is not allowed because service account ${name} does not reference that imagePullSecret`,
          );
    },
  };

  function mountToken(spec: Obj): void {
    const containers = [...list(spec.initContainers), ...list(spec.containers)];
    const volumes = list(spec.volumes);
    const needing = containers.filter((c) => !list(c.volumeMounts).some((m) => m.mountPath === mountPath));
    if (needing.length === 0) return;
    let volumeName = "";
    do volumeName = VOLUME_PREFIX + randomSuffix();
    while (volumes.some((v) => v.name === volumeName));
    volumes.push({
      name: volumeName,
      projected: {
        defaultMode: 0o644,
        sources: [
          { serviceAccountToken: { expirationSeconds: TOKEN_EXPIRATION_SECONDS, path: "token" } },
          { configMap: { name: env.naming.rootCaConfigMap, items: [{ key: "ca.crt", path: "ca.crt" }] } },
          {
            downwardAPI: {
              items: [{ path: "namespace", fieldRef: { apiVersion: "v1", fieldPath: "metadata.namespace" } }],
            },
          },
        ],
      },
    });
    spec.volumes = volumes;
    for (const c of needing)
      c.volumeMounts = [...list(c.volumeMounts), { name: volumeName, readOnly: true, mountPath }];
  }
}

export const registration: PluginRegistration = { name: "ServiceAccount", factory: serviceAccount };
