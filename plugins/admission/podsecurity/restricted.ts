// The restricted checks (Pod Security Standards, as of 1.27); restricted also runs every
// baseline check a restricted one does not replace.
import { isSet, validSeccompType } from "./baseline.ts";
import { ALLOWED, type Check, type CheckFn, type CheckResult, forbid } from "./check.ts";
import { containersPhrase, joinQuote, pluralize, sortedSet } from "./format.ts";
import {
  containers,
  isWindows,
  type PodView,
  podSecurityContext,
  record,
  records,
  strings,
  text,
} from "./pod-spec.ts";

/** From 1.25 some restricted checks do not apply to pods that declare a Windows OS. */
function exceptWindows(check: CheckFn): CheckFn {
  return (pod, keys) => (isWindows(pod.spec) ? ALLOWED : check(pod, keys));
}

function allowPrivilegeEscalationCheck({ spec }: PodView): CheckResult {
  const bad = containers(spec)
    .filter((c) => c.securityContext?.allowPrivilegeEscalation !== false)
    .map((c) => c.name);
  return bad.length
    ? forbid(
        "allowPrivilegeEscalation != false",
        `${containersPhrase(bad)} must set securityContext.allowPrivilegeEscalation=false`,
      )
    : ALLOWED;
}

const allowPrivilegeEscalation: Check = {
  id: "allowPrivilegeEscalation",
  level: "restricted",
  versions: [
    { minimumVersion: 8, check: allowPrivilegeEscalationCheck },
    { minimumVersion: 25, check: exceptWindows(allowPrivilegeEscalationCheck) },
  ],
};

function capabilitiesRestrictedCheck({ spec }: PodView): CheckResult {
  const missingDropAll: string[] = [];
  const adding: string[] = [];
  const forbidden: string[] = [];
  for (const c of containers(spec)) {
    const caps = record(c.securityContext?.capabilities);
    if (!caps) {
      missingDropAll.push(c.name);
      continue;
    }
    if (!strings(caps.drop).includes("ALL")) missingDropAll.push(c.name);
    const extra = strings(caps.add).filter((cap) => cap !== "NET_BIND_SERVICE");
    if (extra.length) {
      adding.push(c.name);
      forbidden.push(...extra);
    }
  }
  const details: string[] = [];
  if (missingDropAll.length) {
    details.push(`${containersPhrase(missingDropAll)} must set securityContext.capabilities.drop=["ALL"]`);
  }
  if (adding.length) {
    details.push(
      `${containersPhrase(adding)} must not include ${joinQuote(sortedSet(forbidden))} in securityContext.capabilities.add`,
    );
  }
  return details.length ? forbid("unrestricted capabilities", details.join("; ")) : ALLOWED;
}

const capabilitiesRestricted: Check = {
  id: "capabilities_restricted",
  level: "restricted",
  versions: [
    { minimumVersion: 22, check: capabilitiesRestrictedCheck, overrides: ["capabilities_baseline"] },
    {
      minimumVersion: 25,
      check: exceptWindows(capabilitiesRestrictedCheck),
      overrides: ["capabilities_baseline"],
    },
  ],
};

const ALLOWED_VOLUME_SOURCES = [
  "configMap",
  "csi",
  "downwardAPI",
  "emptyDir",
  "ephemeral",
  "persistentVolumeClaim",
  "projected",
  "secret",
];

// In upstream's order: the first one set names a volume's type.
const RESTRICTED_VOLUME_SOURCES = [
  "hostPath",
  "gcePersistentDisk",
  "awsElasticBlockStore",
  "gitRepo",
  "nfs",
  "iscsi",
  "glusterfs",
  "rbd",
  "flexVolume",
  "cinder",
  "cephfs",
  "flocker",
  "fc",
  "azureFile",
  "vsphereVolume",
  "quobyte",
  "azureDisk",
  "photonPersistentDisk",
  "portworxVolume",
  "scaleIO",
  "storageos",
];

const restrictedVolumes: Check = {
  id: "restrictedVolumes",
  level: "restricted",
  versions: [
    {
      minimumVersion: 0,
      overrides: ["hostPathVolumes"],
      check: ({ spec }) => {
        const bad: string[] = [];
        const types: string[] = [];
        for (const volume of records(spec.volumes)) {
          if (ALLOWED_VOLUME_SOURCES.some((s) => isSet(volume[s]))) continue;
          bad.push(text(volume.name) ?? "");
          types.push(RESTRICTED_VOLUME_SOURCES.find((s) => isSet(volume[s])) ?? "unknown");
        }
        if (!bad.length) return ALLOWED;
        const unique = sortedSet(types);
        return forbid(
          "restricted volume types",
          `${pluralize("volume", "volumes", bad.length)} ${joinQuote(bad)} ${pluralize("uses", "use", bad.length)} ${pluralize("restricted volume type", "restricted volume types", unique.length)} ${joinQuote(unique)}`,
        );
      },
    },
  ],
};

const runAsNonRoot: Check = {
  id: "runAsNonRoot",
  level: "restricted",
  versions: [
    {
      minimumVersion: 0,
      check: ({ spec }) => {
        const setters: string[] = [];
        let podNonRoot = false;
        const podValue = podSecurityContext(spec)?.runAsNonRoot;
        if (typeof podValue === "boolean") {
          if (podValue) podNonRoot = true;
          else setters.push("pod");
        }
        const explicit: string[] = [];
        const implicit: string[] = [];
        for (const c of containers(spec)) {
          const value = c.securityContext?.runAsNonRoot;
          if (typeof value === "boolean") {
            if (!value) explicit.push(c.name);
          } else if (!podNonRoot) {
            implicit.push(c.name);
          }
        }
        if (explicit.length) setters.push(containersPhrase(explicit));
        if (setters.length) {
          return forbid(
            "runAsNonRoot != true",
            `${setters.join(" and ")} must not set securityContext.runAsNonRoot=false`,
          );
        }
        if (implicit.length) {
          return forbid(
            "runAsNonRoot != true",
            `pod or ${containersPhrase(implicit)} must set securityContext.runAsNonRoot=true`,
          );
        }
        return ALLOWED;
      },
    },
  ],
};

const runAsUser: Check = {
  id: "runAsUser",
  level: "restricted",
  versions: [
    {
      minimumVersion: 23,
      check: ({ spec }) => {
        const setters: string[] = [];
        if (podSecurityContext(spec)?.runAsUser === 0) setters.push("pod");
        const bad = containers(spec)
          .filter((c) => c.securityContext?.runAsUser === 0)
          .map((c) => c.name);
        if (bad.length) setters.push(containersPhrase(bad));
        return setters.length
          ? forbid("runAsUser=0", `${setters.join(" and ")} must not set runAsUser=0`)
          : ALLOWED;
      },
    },
  ],
};

function seccompProfileRestrictedCheck({ spec }: PodView): CheckResult {
  const setters: string[] = [];
  const values: string[] = [];
  let podSet = false;
  const podProfile = record(podSecurityContext(spec)?.seccompProfile);
  if (podProfile) {
    const type = text(podProfile.type) ?? "";
    if (validSeccompType(type)) podSet = true;
    else {
      setters.push("pod");
      values.push(type);
    }
  }
  const explicit: string[] = [];
  const implicit: string[] = [];
  for (const c of containers(spec)) {
    const profile = record(c.securityContext?.seccompProfile);
    if (profile) {
      const type = text(profile.type) ?? "";
      if (!validSeccompType(type)) {
        explicit.push(c.name);
        values.push(type);
      }
    } else if (!podSet) {
      implicit.push(c.name);
    }
  }
  if (explicit.length) setters.push(containersPhrase(explicit));
  if (setters.length) {
    return forbid(
      "seccompProfile",
      `${setters.join(" and ")} must not set securityContext.seccompProfile.type to ${joinQuote(sortedSet(values))}`,
    );
  }
  if (implicit.length) {
    return forbid(
      "seccompProfile",
      `pod or ${containersPhrase(implicit)} must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost"`,
    );
  }
  return ALLOWED;
}

const seccompProfileRestricted: Check = {
  id: "seccompProfile_restricted",
  level: "restricted",
  versions: [
    { minimumVersion: 19, check: seccompProfileRestrictedCheck, overrides: ["seccompProfile_baseline"] },
    {
      minimumVersion: 25,
      check: exceptWindows(seccompProfileRestrictedCheck),
      overrides: ["seccompProfile_baseline"],
    },
  ],
};

export const RESTRICTED_CHECKS: readonly Check[] = [
  allowPrivilegeEscalation,
  capabilitiesRestricted,
  restrictedVolumes,
  runAsNonRoot,
  runAsUser,
  seccompProfileRestricted,
];
