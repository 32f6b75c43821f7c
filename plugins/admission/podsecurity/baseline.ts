// The baseline checks (Pod Security Standards, as of 1.27).
import { ALLOWED, type Check, type CheckResult, forbid } from "./check.ts";
import { byCodeUnit, containersPhrase, joinQuote, pluralize, quote, sortedSet } from "./format.ts";
import { containers, type PodView, podSecurityContext, record, records, strings, text } from "./pod-spec.ts";

const privileged: Check = {
  id: "privileged",
  level: "baseline",
  versions: [
    {
      minimumVersion: 0,
      check: ({ spec }) => {
        const bad = containers(spec)
          .filter((c) => c.securityContext?.privileged === true)
          .map((c) => c.name);
        return bad.length
          ? forbid("privileged", `${containersPhrase(bad)} must not set securityContext.privileged=true`)
          : ALLOWED;
      },
    },
  ],
};

const hostNamespaces: Check = {
  id: "hostNamespaces",
  level: "baseline",
  versions: [
    {
      minimumVersion: 0,
      check: ({ spec }) => {
        const shared = (["hostNetwork", "hostPID", "hostIPC"] as const)
          .filter((f) => spec[f] === true)
          .map((f) => `${f}=true`);
        return shared.length ? forbid("host namespaces", shared.join(", ")) : ALLOWED;
      },
    },
  ],
};

const hostPathVolumes: Check = {
  id: "hostPathVolumes",
  level: "baseline",
  versions: [
    {
      minimumVersion: 0,
      check: ({ spec }) => {
        const bad = records(spec.volumes)
          .filter((v) => isSet(v.hostPath))
          .map((v) => text(v.name) ?? "");
        return bad.length
          ? forbid("hostPath volumes", `${pluralize("volume", "volumes", bad.length)} ${joinQuote(bad)}`)
          : ALLOWED;
      },
    },
  ],
};

const hostPorts: Check = {
  id: "hostPorts",
  level: "baseline",
  versions: [
    {
      minimumVersion: 0,
      check: ({ spec }) => {
        const bad: string[] = [];
        const ports: string[] = [];
        for (const c of containers(spec)) {
          const used = records(c.raw.ports)
            .map((p) => p.hostPort)
            .filter((p): p is number => typeof p === "number" && p !== 0);
          if (used.length) {
            bad.push(c.name);
            ports.push(...used.map((p) => String(Math.trunc(p))));
          }
        }
        if (!bad.length) return ALLOWED;
        const unique = sortedSet(ports);
        return forbid(
          "hostPort",
          `${containersPhrase(bad)} ${pluralize("uses", "use", bad.length)} ${pluralize("hostPort", "hostPorts", unique.length)} ${unique.join(", ")}`,
        );
      },
    },
  ],
};

const procMount: Check = {
  id: "procMount",
  level: "baseline",
  versions: [
    {
      minimumVersion: 0,
      check: ({ spec }) => {
        const bad: string[] = [];
        const types: string[] = [];
        for (const c of containers(spec)) {
          const value = text(c.securityContext?.procMount);
          if (value !== undefined && value !== "Default") {
            bad.push(c.name);
            types.push(value);
          }
        }
        return bad.length
          ? forbid(
              "procMount",
              `${containersPhrase(bad)} must not set securityContext.procMount to ${joinQuote(sortedSet(types))}`,
            )
          : ALLOWED;
      },
    },
  ],
};

const appArmorProfile: Check = {
  id: "appArmorProfile",
  level: "baseline",
  versions: [
    {
      minimumVersion: 0,
      check: ({ annotations }, keys) => {
        const bad = Object.entries(annotations)
          .filter(
            ([k, v]) =>
              k.startsWith(keys.appArmorPrefix) &&
              v !== "" &&
              v !== "runtime/default" &&
              !v.startsWith("localhost/"),
          )
          .map(([k, v]) => `${k}=${quote(v)}`)
          .sort(byCodeUnit);
        return bad.length
          ? forbid(
              pluralize("forbidden AppArmor profile", "forbidden AppArmor profiles", bad.length),
              bad.join(", "),
            )
          : ALLOWED;
      },
    },
  ],
};

const ALLOWED_CAPABILITIES = new Set([
  "AUDIT_WRITE",
  "CHOWN",
  "DAC_OVERRIDE",
  "FOWNER",
  "FSETID",
  "KILL",
  "MKNOD",
  "NET_BIND_SERVICE",
  "SETFCAP",
  "SETGID",
  "SETPCAP",
  "SETUID",
  "SYS_CHROOT",
]);

const capabilitiesBaseline: Check = {
  id: "capabilities_baseline",
  level: "baseline",
  versions: [
    {
      minimumVersion: 0,
      check: ({ spec }) => {
        const bad: string[] = [];
        const added: string[] = [];
        for (const c of containers(spec)) {
          const extra = strings(record(c.securityContext?.capabilities)?.add).filter(
            (cap) => !ALLOWED_CAPABILITIES.has(cap),
          );
          if (extra.length) {
            bad.push(c.name);
            added.push(...extra);
          }
        }
        return bad.length
          ? forbid(
              "non-default capabilities",
              `${containersPhrase(bad)} must not include ${joinQuote(sortedSet(added))} in securityContext.capabilities.add`,
            )
          : ALLOWED;
      },
    },
  ],
};

const SELINUX_TYPES = new Set(["", "container_t", "container_init_t", "container_kvm_t"]);

function seLinuxOptionsCheck({ spec }: PodView): CheckResult {
  const badTypes: string[] = [];
  let setUser = false;
  let setRole = false;
  const valid = (options: Record<string, unknown>): boolean => {
    let ok = true;
    const type = text(options.type) ?? "";
    if (!SELINUX_TYPES.has(type)) {
      ok = false;
      badTypes.push(type);
    }
    if (text(options.user)) {
      ok = false;
      setUser = true;
    }
    if (text(options.role)) {
      ok = false;
      setRole = true;
    }
    return ok;
  };
  const setters: string[] = [];
  const podOptions = record(podSecurityContext(spec)?.seLinuxOptions);
  if (podOptions && !valid(podOptions)) setters.push("pod");
  const bad: string[] = [];
  for (const c of containers(spec)) {
    const options = record(c.securityContext?.seLinuxOptions);
    if (options && !valid(options)) bad.push(c.name);
  }
  if (bad.length) setters.push(containersPhrase(bad));
  if (!setters.length) return ALLOWED;
  const data: string[] = [];
  const types = sortedSet(badTypes);
  if (types.length) data.push(`${pluralize("type", "types", types.length)} ${joinQuote(types)}`);
  if (setUser) data.push("user may not be set");
  if (setRole) data.push("role may not be set");
  return forbid(
    "seLinuxOptions",
    `${setters.join(" and ")} set forbidden securityContext.seLinuxOptions: ${data.join("; ")}`,
  );
}

const seLinuxOptions: Check = {
  id: "seLinuxOptions",
  level: "baseline",
  versions: [{ minimumVersion: 0, check: seLinuxOptionsCheck }],
};

const SYSCTLS_1_0 = [
  "kernel.shm_rmid_forced",
  "net.ipv4.ip_local_port_range",
  "net.ipv4.tcp_syncookies",
  "net.ipv4.ping_group_range",
  "net.ipv4.ip_unprivileged_port_start",
];
const SYSCTLS_1_27 = [...SYSCTLS_1_0, "net.ipv4.ip_local_reserved_ports"];

function sysctlsCheck(allowed: ReadonlySet<string>) {
  return ({ spec }: PodView): CheckResult => {
    const bad = records(podSecurityContext(spec)?.sysctls)
      .map((s) => text(s.name) ?? "")
      .filter((name) => !allowed.has(name));
    return bad.length ? forbid("forbidden sysctls", bad.join(", ")) : ALLOWED;
  };
}

const sysctls: Check = {
  id: "sysctls",
  level: "baseline",
  versions: [
    { minimumVersion: 0, check: sysctlsCheck(new Set(SYSCTLS_1_0)) },
    { minimumVersion: 27, check: sysctlsCheck(new Set(SYSCTLS_1_27)) },
  ],
};

const windowsHostProcess: Check = {
  id: "windowsHostProcess",
  level: "baseline",
  versions: [
    {
      minimumVersion: 0,
      check: ({ spec }) => {
        const bad = containers(spec)
          .filter((c) => record(c.securityContext?.windowsOptions)?.hostProcess === true)
          .map((c) => c.name);
        const setters: string[] = [];
        if (record(podSecurityContext(spec)?.windowsOptions)?.hostProcess === true) setters.push("pod");
        if (bad.length) setters.push(containersPhrase(bad));
        return setters.length
          ? forbid(
              "hostProcess",
              `${setters.join(" and ")} must not set securityContext.windowsOptions.hostProcess=true`,
            )
          : ALLOWED;
      },
    },
  ],
};

export function validSeccompType(type: string): boolean {
  return type === "Localhost" || type === "RuntimeDefault";
}

function validSeccompAnnotation(value: string): boolean {
  return value === "runtime/default" || value === "docker/default" || value.startsWith("localhost/");
}

const seccompProfileBaseline: Check = {
  id: "seccompProfile_baseline",
  level: "baseline",
  versions: [
    {
      // Before 1.19 seccomp was set through annotations.
      minimumVersion: 0,
      check: ({ annotations, spec }, keys) => {
        const bad: string[] = [];
        const consider = (key: string) => {
          const value = annotations[key];
          if (value !== undefined && !validSeccompAnnotation(value)) bad.push(`${key}=${quote(value)}`);
        };
        consider(keys.seccompPod);
        for (const c of containers(spec)) consider(keys.seccompContainerPrefix + c.name);
        const unique = sortedSet(bad);
        return unique.length
          ? forbid(
              "seccompProfile",
              `forbidden ${pluralize("annotation", "annotations", unique.length)} ${unique.join(", ")}`,
            )
          : ALLOWED;
      },
    },
    {
      minimumVersion: 19,
      check: ({ spec }) => {
        const setters: string[] = [];
        const values: string[] = [];
        const podProfile = record(podSecurityContext(spec)?.seccompProfile);
        if (podProfile) {
          const type = text(podProfile.type) ?? "";
          if (!validSeccompType(type)) {
            setters.push("pod");
            values.push(type);
          }
        }
        const bad: string[] = [];
        for (const c of containers(spec)) {
          const profile = record(c.securityContext?.seccompProfile);
          if (!profile) continue;
          const type = text(profile.type) ?? "";
          if (!validSeccompType(type)) {
            bad.push(c.name);
            values.push(type);
          }
        }
        if (bad.length) setters.push(containersPhrase(bad));
        return setters.length
          ? forbid(
              "seccompProfile",
              `${setters.join(" and ")} must not set securityContext.seccompProfile.type to ${joinQuote(sortedSet(values))}`,
            )
          : ALLOWED;
      },
    },
  ],
};

/** Set in JSON: present and not null (Go's non-nil pointer). */
export function isSet(value: unknown): boolean {
  return value !== undefined && value !== null;
}

export const BASELINE_CHECKS: readonly Check[] = [
  privileged,
  hostNamespaces,
  hostPathVolumes,
  hostPorts,
  procMount,
  appArmorProfile,
  capabilitiesBaseline,
  seLinuxOptions,
  sysctls,
  windowsHostProcess,
  seccompProfileBaseline,
];
