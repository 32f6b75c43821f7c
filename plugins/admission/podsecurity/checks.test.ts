import assert from "node:assert/strict";
import { test } from "node:test";
import { naming } from "../../../backends/naming/index.ts";
import type { JsonObject } from "../contract.ts";
import type { CheckKeys } from "./check.ts";
import { checkIds, evaluate, MAX_VERSION, verdictDetail } from "./evaluator.ts";
import type { Level, Version } from "./levels.ts";
import { podView } from "./pod-spec.ts";

const domain = naming("cluster").labelDomain;
const keys: CheckKeys = {
  appArmorPrefix: `container.apparmor.security.beta.${domain}/`,
  seccompPod: `seccomp.security.alpha.${domain}/pod`,
  seccompContainerPrefix: `container.seccomp.security.alpha.${domain}/`,
};

/** A pod that passes restricted at every version. */
function restrictedPod(): JsonObject {
  return {
    metadata: { name: "p", annotations: {} },
    spec: {
      securityContext: { runAsNonRoot: true, seccompProfile: { type: "RuntimeDefault" } },
      initContainers: [
        {
          name: "init",
          image: "i",
          securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ["ALL"] } },
        },
      ],
      containers: [
        {
          name: "c",
          image: "i",
          securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ["ALL"] } },
        },
      ],
    },
  };
}

// biome-ignore lint/suspicious/noExplicitAny: test edits reach deep into plain JSON fixtures.
type Pod = { metadata: { annotations: Record<string, string> }; spec: Record<string, any> };

interface Case {
  readonly name: string;
  readonly edit: (pod: Pod) => void;
  readonly level: Level;
  readonly version: Version;
  /** undefined: allowed; otherwise the exact `reason (detail), ...` text. */
  readonly denied?: string;
}

const c0 = (p: Pod) => p.spec.containers[0];
const init0 = (p: Pod) => p.spec.initContainers[0];

const cases: Case[] = [
  // privileged
  {
    name: "privileged ok",
    edit: (p) => {
      c0(p).securityContext.privileged = false;
    },
    level: "baseline",
    version: "latest",
  },
  {
    name: "privileged",
    edit: (p) => {
      c0(p).securityContext.privileged = true;
      init0(p).securityContext.privileged = true;
    },
    level: "baseline",
    version: 0,
    denied: 'privileged (containers "init", "c" must not set securityContext.privileged=true)',
  },
  // host namespaces
  {
    name: "host namespaces",
    edit: (p) => {
      p.spec.hostNetwork = true;
      p.spec.hostIPC = true;
      p.spec.hostPID = false;
    },
    level: "baseline",
    version: 0,
    denied: "host namespaces (hostNetwork=true, hostIPC=true)",
  },
  {
    name: "host namespaces false",
    edit: (p) => {
      p.spec.hostNetwork = false;
    },
    level: "restricted",
    version: "latest",
  },
  // hostPath
  {
    name: "hostPath baseline",
    edit: (p) => {
      p.spec.volumes = [
        { name: "h", hostPath: { path: "/" } },
        { name: "e", emptyDir: {} },
      ];
    },
    level: "baseline",
    version: "latest",
    denied: 'hostPath volumes (volume "h")',
  },
  {
    name: "hostPath restricted is reported as a restricted volume type",
    edit: (p) => {
      p.spec.volumes = [
        { name: "h", hostPath: { path: "/" } },
        { name: "n", nfs: {} },
        { name: "g", gitRepo: {} },
      ];
    },
    level: "restricted",
    version: "latest",
    denied:
      'restricted volume types (volumes "h", "n", "g" use restricted volume types "gitRepo", "hostPath", "nfs")',
  },
  {
    name: "restricted volumes unknown",
    edit: (p) => {
      p.spec.volumes = [{ name: "x", somethingNew: {} }];
    },
    level: "restricted",
    version: 10,
    denied: 'restricted volume types (volume "x" uses restricted volume type "unknown")',
  },
  {
    name: "allowed volume kinds",
    edit: (p) => {
      p.spec.volumes = [
        "configMap",
        "csi",
        "downwardAPI",
        "emptyDir",
        "ephemeral",
        "persistentVolumeClaim",
        "projected",
        "secret",
      ].map((k) => ({ name: k.toLowerCase(), [k]: {} }));
    },
    level: "restricted",
    version: "latest",
  },
  {
    name: "nfs is fine for baseline",
    edit: (p) => {
      p.spec.volumes = [{ name: "n", nfs: {} }];
    },
    level: "baseline",
    version: "latest",
  },
  // host ports
  {
    name: "hostPorts",
    edit: (p) => {
      c0(p).ports = [
        { containerPort: 80, hostPort: 9 },
        { containerPort: 81, hostPort: 10 },
      ];
      init0(p).ports = [{ containerPort: 80, hostPort: 9 }];
    },
    level: "baseline",
    version: "latest",
    denied: 'hostPort (containers "init", "c" use hostPorts 10, 9)',
  },
  {
    name: "hostPort 0",
    edit: (p) => {
      c0(p).ports = [{ containerPort: 80, hostPort: 0 }];
    },
    level: "baseline",
    version: "latest",
  },
  // procMount
  {
    name: "procMount",
    edit: (p) => {
      c0(p).securityContext.procMount = "Unmasked";
    },
    level: "baseline",
    version: "latest",
    denied: 'procMount (container "c" must not set securityContext.procMount to "Unmasked")',
  },
  {
    name: "procMount Default",
    edit: (p) => {
      c0(p).securityContext.procMount = "Default";
    },
    level: "baseline",
    version: "latest",
  },
  // AppArmor
  {
    name: "AppArmor unconfined",
    edit: (p) => {
      p.metadata.annotations[`${keys.appArmorPrefix}c`] = "unconfined";
      p.metadata.annotations[`${keys.appArmorPrefix}init`] = "runtime/default";
      p.metadata.annotations[`${keys.appArmorPrefix}other`] = "localhost/foo";
    },
    level: "baseline",
    version: "latest",
    denied: `forbidden AppArmor profile (container.apparmor.security.beta.${domain}/c="unconfined")`,
  },
  {
    name: "AppArmor two profiles",
    edit: (p) => {
      p.metadata.annotations[`${keys.appArmorPrefix}c`] = "unconfined";
      p.metadata.annotations[`${keys.appArmorPrefix}b`] = "x";
    },
    level: "restricted",
    version: 3,
    denied: `forbidden AppArmor profiles (container.apparmor.security.beta.${domain}/b="x", container.apparmor.security.beta.${domain}/c="unconfined")`,
  },
  // capabilities
  {
    name: "capabilities baseline",
    edit: (p) => {
      c0(p).securityContext.capabilities = { add: ["NET_RAW", "CHOWN", "SYS_ADMIN"] };
    },
    level: "baseline",
    version: "latest",
    denied:
      'non-default capabilities (container "c" must not include "NET_RAW", "SYS_ADMIN" in securityContext.capabilities.add)',
  },
  {
    name: "capabilities baseline allows the default set",
    edit: (p) => {
      c0(p).securityContext.capabilities = { add: ["CHOWN", "KILL", "NET_BIND_SERVICE"] };
    },
    level: "baseline",
    version: "latest",
  },
  {
    name: "capabilities restricted",
    edit: (p) => {
      c0(p).securityContext.capabilities = { add: ["CHOWN", "NET_BIND_SERVICE"], drop: ["ALL"] };
      delete init0(p).securityContext.capabilities;
    },
    level: "restricted",
    version: 22,
    denied:
      'unrestricted capabilities (container "init" must set securityContext.capabilities.drop=["ALL"]; container "c" must not include "CHOWN" in securityContext.capabilities.add)',
  },
  {
    name: "capabilities restricted before 1.22 uses baseline's rule",
    edit: (p) => {
      c0(p).securityContext.capabilities = { add: ["CHOWN"] };
    },
    level: "restricted",
    version: 21,
  },
  {
    name: "baseline capability check inside restricted before 1.22",
    edit: (p) => {
      c0(p).securityContext.capabilities = { add: ["SYS_ADMIN"] };
    },
    level: "restricted",
    version: 21,
    denied:
      'non-default capabilities (container "c" must not include "SYS_ADMIN" in securityContext.capabilities.add)',
  },
  // SELinux
  {
    name: "seLinuxOptions",
    edit: (p) => {
      p.spec.securityContext.seLinuxOptions = { type: "spc_t" };
      c0(p).securityContext.seLinuxOptions = { user: "u", role: "r", type: "container_t" };
    },
    level: "baseline",
    version: "latest",
    denied:
      'seLinuxOptions (pod and container "c" set forbidden securityContext.seLinuxOptions: type "spc_t"; user may not be set; role may not be set)',
  },
  {
    name: "seLinuxOptions allowed types",
    edit: (p) => {
      c0(p).securityContext.seLinuxOptions = { type: "container_init_t", level: "s0:c1" };
    },
    level: "baseline",
    version: "latest",
  },
  // sysctls
  {
    name: "sysctls",
    edit: (p) => {
      p.spec.securityContext.sysctls = [
        { name: "kernel.msgmax", value: "1" },
        { name: "net.ipv4.tcp_syncookies", value: "1" },
      ];
    },
    level: "baseline",
    version: "latest",
    denied: "forbidden sysctls (kernel.msgmax)",
  },
  {
    name: "ip_local_reserved_ports before 1.27",
    edit: (p) => {
      p.spec.securityContext.sysctls = [{ name: "net.ipv4.ip_local_reserved_ports", value: "1" }];
    },
    level: "baseline",
    version: 26,
    denied: "forbidden sysctls (net.ipv4.ip_local_reserved_ports)",
  },
  {
    name: "ip_local_reserved_ports from 1.27",
    edit: (p) => {
      p.spec.securityContext.sysctls = [{ name: "net.ipv4.ip_local_reserved_ports", value: "1" }];
    },
    level: "baseline",
    version: 27,
  },
  // windows host process
  {
    name: "hostProcess",
    edit: (p) => {
      p.spec.securityContext.windowsOptions = { hostProcess: true };
      c0(p).securityContext.windowsOptions = { hostProcess: true };
    },
    level: "baseline",
    version: "latest",
    denied:
      'hostProcess (pod and container "c" must not set securityContext.windowsOptions.hostProcess=true)',
  },
  // seccomp
  {
    name: "seccomp Unconfined (baseline, field)",
    edit: (p) => {
      c0(p).securityContext.seccompProfile = { type: "Unconfined" };
    },
    level: "baseline",
    version: 19,
    denied: 'seccompProfile (container "c" must not set securityContext.seccompProfile.type to "Unconfined")',
  },
  {
    name: "seccomp annotations before 1.19",
    edit: (p) => {
      p.metadata.annotations[keys.seccompPod] = "unconfined";
      p.metadata.annotations[`${keys.seccompContainerPrefix}c`] = "docker/default";
      p.metadata.annotations[`${keys.seccompContainerPrefix}init`] = "foo";
      p.spec.securityContext.seccompProfile = { type: "Unconfined" };
    },
    level: "baseline",
    version: 18,
    denied: `seccompProfile (forbidden annotations container.seccomp.security.alpha.${domain}/init="foo", seccomp.security.alpha.${domain}/pod="unconfined")`,
  },
  {
    name: "seccomp annotations are ignored from 1.19",
    edit: (p) => {
      p.metadata.annotations[keys.seccompPod] = "unconfined";
    },
    level: "baseline",
    version: 19,
  },
  {
    name: "seccomp restricted requires a profile",
    edit: (p) => {
      delete p.spec.securityContext.seccompProfile;
      c0(p).securityContext.seccompProfile = { type: "Localhost" };
    },
    level: "restricted",
    version: "latest",
    denied:
      'seccompProfile (pod or container "init" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")',
  },
  {
    name: "seccomp restricted unset before 1.19",
    edit: (p) => {
      delete p.spec.securityContext.seccompProfile;
    },
    level: "restricted",
    version: 18,
  },
  {
    name: "seccomp restricted explicit bad value",
    edit: (p) => {
      p.spec.securityContext.seccompProfile = { type: "Unconfined" };
    },
    level: "restricted",
    version: 19,
    denied: 'seccompProfile (pod must not set securityContext.seccompProfile.type to "Unconfined")',
  },
  // allowPrivilegeEscalation
  {
    name: "allowPrivilegeEscalation unset",
    edit: (p) => {
      delete c0(p).securityContext.allowPrivilegeEscalation;
      init0(p).securityContext.allowPrivilegeEscalation = true;
    },
    level: "restricted",
    version: 8,
    denied:
      'allowPrivilegeEscalation != false (containers "init", "c" must set securityContext.allowPrivilegeEscalation=false)',
  },
  {
    name: "allowPrivilegeEscalation before 1.8",
    edit: (p) => {
      delete c0(p).securityContext.allowPrivilegeEscalation;
    },
    level: "restricted",
    version: 7,
  },
  // runAsNonRoot
  {
    name: "runAsNonRoot unset",
    edit: (p) => {
      delete p.spec.securityContext.runAsNonRoot;
      c0(p).securityContext.runAsNonRoot = true;
    },
    level: "restricted",
    version: 0,
    denied: 'runAsNonRoot != true (pod or container "init" must set securityContext.runAsNonRoot=true)',
  },
  {
    name: "runAsNonRoot false",
    edit: (p) => {
      p.spec.securityContext.runAsNonRoot = false;
      c0(p).securityContext.runAsNonRoot = false;
    },
    level: "restricted",
    version: "latest",
    denied: 'runAsNonRoot != true (pod and container "c" must not set securityContext.runAsNonRoot=false)',
  },
  // runAsUser
  {
    name: "runAsUser 0",
    edit: (p) => {
      p.spec.securityContext.runAsUser = 0;
      c0(p).securityContext.runAsUser = 0;
      init0(p).securityContext.runAsUser = 1000;
    },
    level: "restricted",
    version: 23,
    denied: 'runAsUser=0 (pod and container "c" must not set runAsUser=0)',
  },
  {
    name: "runAsUser 0 before 1.23",
    edit: (p) => {
      p.spec.securityContext.runAsUser = 0;
    },
    level: "restricted",
    version: 22,
  },
  // Windows pods from 1.25
  {
    name: "windows pods skip Linux-only restricted checks from 1.25",
    edit: (p) => {
      p.spec.os = { name: "windows" };
      delete p.spec.securityContext.seccompProfile;
      delete c0(p).securityContext;
      delete init0(p).securityContext;
    },
    level: "restricted",
    version: 25,
  },
  {
    name: "windows pods before 1.25",
    edit: (p) => {
      p.spec.os = { name: "windows" };
      delete c0(p).securityContext;
      delete init0(p).securityContext;
    },
    level: "restricted",
    version: 24,
    denied:
      'allowPrivilegeEscalation != false (containers "init", "c" must set securityContext.allowPrivilegeEscalation=false), unrestricted capabilities (containers "init", "c" must set securityContext.capabilities.drop=["ALL"])',
  },
  // ephemeral containers are checked too
  {
    name: "ephemeral containers",
    edit: (p) => {
      p.spec.ephemeralContainers = [{ name: "dbg", image: "i", securityContext: { privileged: true } }];
    },
    level: "baseline",
    version: "latest",
    denied: 'privileged (container "dbg" must not set securityContext.privileged=true)',
  },
  // several checks: baseline ones first, each group in id order
  {
    name: "several violations in order",
    edit: (p) => {
      p.spec.hostPID = true;
      c0(p).securityContext = { privileged: true };
      p.spec.securityContext = {};
    },
    level: "restricted",
    version: "latest",
    denied:
      'host namespaces (hostPID=true), privileged (container "c" must not set securityContext.privileged=true), allowPrivilegeEscalation != false (container "c" must set securityContext.allowPrivilegeEscalation=false), unrestricted capabilities (container "c" must set securityContext.capabilities.drop=["ALL"]), runAsNonRoot != true (pod or containers "init", "c" must set securityContext.runAsNonRoot=true), seccompProfile (pod or containers "init", "c" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")',
  },
  // privileged allows anything; versions past the newest evaluate as the newest
  {
    name: "privileged level",
    edit: (p) => {
      c0(p).securityContext.privileged = true;
      p.spec.hostPID = true;
    },
    level: "privileged",
    version: "latest",
  },
  {
    name: "future version",
    edit: (p) => {
      p.spec.securityContext.runAsUser = 0;
    },
    level: "restricted",
    version: 99,
    denied: "runAsUser=0 (pod must not set runAsUser=0)",
  },
  // malformed fields count as unset, never crash
  {
    name: "malformed fields",
    edit: (p) => {
      p.spec.containers = [{ name: "c", securityContext: "nope", ports: "x" }, 7, null];
      p.spec.initContainers = "bad";
      p.spec.volumes = { not: "a list" };
    },
    level: "baseline",
    version: "latest",
  },
];

test("each check at its levels and versions: allowed, or denied with upstream's text", () => {
  for (const c of cases) {
    const pod = restrictedPod() as unknown as Pod;
    c.edit(pod);
    const version = c.version;
    const verdict = evaluate({ level: c.level, version }, podView(pod.metadata, pod.spec), keys);
    if (c.denied === undefined) {
      assert.ok(verdict.allowed, `${c.name}: ${verdictDetail(verdict)}`);
    } else {
      assert.equal(verdict.allowed, false, c.name);
      assert.equal(verdictDetail(verdict), c.denied, c.name);
    }
  }
});

test("the base pod passes restricted at every version", () => {
  for (let v = 0; v <= MAX_VERSION + 1; v++) {
    const pod = restrictedPod() as unknown as Pod;
    assert.ok(
      evaluate({ level: "restricted", version: v }, podView(pod.metadata, pod.spec), keys).allowed,
      `v1.${v}`,
    );
  }
});

test("which checks each level and version runs", () => {
  assert.equal(MAX_VERSION, 27);
  assert.deepEqual(checkIds({ level: "privileged", version: "latest" }), []);
  const baseline = [
    "appArmorProfile",
    "capabilities_baseline",
    "hostNamespaces",
    "hostPathVolumes",
    "hostPorts",
    "privileged",
    "procMount",
    "seLinuxOptions",
    "seccompProfile_baseline",
    "sysctls",
    "windowsHostProcess",
  ];
  assert.deepEqual(checkIds({ level: "baseline", version: 0 }), baseline);
  assert.deepEqual(checkIds({ level: "baseline", version: "latest" }), baseline);
  assert.deepEqual(checkIds({ level: "restricted", version: 0 }), [
    ...baseline.filter((id) => id !== "hostPathVolumes"),
    "restrictedVolumes",
    "runAsNonRoot",
  ]);
  assert.deepEqual(checkIds({ level: "restricted", version: "latest" }), [
    ...baseline.filter(
      (id) => !["hostPathVolumes", "capabilities_baseline", "seccompProfile_baseline"].includes(id),
    ),
    "allowPrivilegeEscalation",
    "capabilities_restricted",
    "restrictedVolumes",
    "runAsNonRoot",
    "runAsUser",
    "seccompProfile_restricted",
  ]);
});
