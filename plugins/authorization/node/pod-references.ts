import { asObject as obj, asString as str } from "../../../backends/common/json.ts";

// What a pod makes its node need: the secrets, config maps and claims its volumes, environment
// and image pulls name, and the service account it runs as. Objects are read defensively: a
// malformed pod yields fewer references, never an exception.

type Json = Record<string, unknown>;

function objects(value: unknown): Json[] {
  if (!Array.isArray(value)) return [];
  const out: Json[] = [];
  for (const v of value) {
    const o = obj(v);
    if (o) out.push(o);
  }
  return out;
}

export interface PodReferences {
  readonly secrets: ReadonlySet<string>;
  readonly configMaps: ReadonlySet<string>;
  readonly claims: ReadonlySet<string>;
  /** "" when the pod names none. */
  readonly serviceAccount: string;
}

// Volume sources that name a secret through a `secretRef` (their credentials).
const SECRET_REF_SOURCES = [
  "cephfs",
  "cinder",
  "flexVolume",
  "iscsi",
  "rbd",
  "scaleIO",
  "storageos",
] as const;

export function podReferences(pod: Json): PodReferences {
  const spec = obj(pod.spec) ?? {};
  const podName = str(obj(pod.metadata)?.name);
  const secrets = new Set<string>();
  const configMaps = new Set<string>();
  const claims = new Set<string>();
  const add = (set: Set<string>, name: string) => {
    if (name !== "") set.add(name);
  };

  for (const ref of objects(spec.imagePullSecrets)) add(secrets, str(ref.name));

  const containers = [
    ...objects(spec.containers),
    ...objects(spec.initContainers),
    ...objects(spec.ephemeralContainers),
  ];
  for (const container of containers) {
    for (const env of objects(container.env)) {
      const from = obj(env.valueFrom);
      add(secrets, str(obj(from?.secretKeyRef)?.name));
      add(configMaps, str(obj(from?.configMapKeyRef)?.name));
    }
    for (const envFrom of objects(container.envFrom)) {
      add(secrets, str(obj(envFrom.secretRef)?.name));
      add(configMaps, str(obj(envFrom.configMapRef)?.name));
    }
  }

  for (const volume of objects(spec.volumes)) {
    add(secrets, str(obj(volume.secret)?.secretName));
    add(secrets, str(obj(volume.azureFile)?.secretName));
    add(secrets, str(obj(obj(volume.csi)?.nodePublishSecretRef)?.name));
    for (const source of SECRET_REF_SOURCES) add(secrets, str(obj(obj(volume[source])?.secretRef)?.name));
    add(configMaps, str(obj(volume.configMap)?.name));
    for (const projection of objects(obj(volume.projected)?.sources)) {
      add(secrets, str(obj(projection.secret)?.name));
      add(configMaps, str(obj(projection.configMap)?.name));
    }
    add(claims, str(obj(volume.persistentVolumeClaim)?.claimName));
    // A generic ephemeral volume's claim is named after the pod and the volume.
    if (obj(volume.ephemeral) && podName !== "" && str(volume.name) !== "") {
      claims.add(`${podName}-${str(volume.name)}`);
    }
  }

  // `serviceAccount` is the deprecated spelling, used when the current one is empty.
  const serviceAccount = str(spec.serviceAccountName) || str(spec.serviceAccount);
  return { secrets, configMaps, claims, serviceAccount };
}
