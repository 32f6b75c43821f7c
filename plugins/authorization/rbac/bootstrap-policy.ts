// The default RBAC policy the server keeps in place, after upstream's 1.27 bootstrap policy
// (names, rules, labels and bindings) in the naming preset's spelling, plus roles for the
// gateway's own controllers, which act as the users `system:controller:<name>`.
import type { Naming } from "../../../backends/naming/index.ts";

type Json = Record<string, unknown>;

export interface BootstrapPolicy {
  readonly clusterRoles: readonly Json[];
  readonly clusterRoleBindings: readonly Json[];
  /** Namespaced Roles (metadata.namespace set). */
  readonly roles: readonly Json[];
  readonly roleBindings: readonly Json[];
}

const READ = ["get", "list", "watch"];
const WRITE = ["create", "update", "patch", "delete", "deletecollection"];
const READ_WRITE = [...READ, ...WRITE];
const READ_UPDATE = ["get", "list", "watch", "update", "patch"];

export const SYSTEM_AUTHENTICATED = "system:authenticated";
export const SYSTEM_UNAUTHENTICATED = "system:unauthenticated";

/** The gateway's controllers, as the user names their client certificates carry after `system:controller:`. */
export const CONTROLLER_NAMES = [
  "namespace-controller",
  "serviceaccount-controller",
  "token-controller",
  "root-ca-cert-publisher",
  "pvc-protection-controller",
  "clusterrole-aggregation-controller",
  "apiservice-registration-controller",
  "certificate-controller",
  "bootstrap-signer",
  "token-cleaner",
  "generic-garbage-collector",
] as const;

function rule(
  verbs: readonly string[],
  apiGroups: readonly string[],
  resources: readonly string[],
  names?: readonly string[],
) {
  return {
    verbs: [...verbs],
    apiGroups: [...apiGroups],
    resources: [...resources],
    ...(names && names.length > 0 ? { resourceNames: [...names] } : {}),
  };
}

function urls(verbs: readonly string[], nonResourceURLs: readonly string[]) {
  return { verbs: [...verbs], nonResourceURLs: [...nonResourceURLs] };
}

/** The built-in signer names of the preset (SPEC, CertificateSigningRequest). */
export function signerNames(naming: Naming) {
  const upstream = naming.preset === "kubernetes";
  return {
    apiserverClient: naming.label(upstream ? "kube-apiserver-client" : "cluster-apiserver-client"),
    apiserverClientKubelet: naming.label(
      upstream ? "kube-apiserver-client-kubelet" : "cluster-apiserver-client-nodeagent",
    ),
    kubeletServing: naming.label(upstream ? "kubelet-serving" : "nodeagent-serving"),
    legacyUnknown: naming.label("legacy-unknown"),
  };
}

export function bootstrapPolicy(naming: Naming): BootstrapPolicy {
  const core = "";
  const apps = "apps";
  const autoscaling = "autoscaling";
  const batch = "batch";
  const extensions = "extensions";
  const policy = "policy";
  const authentication = naming.group("authentication");
  const authorization = naming.group("authorization");
  const certificates = naming.group("certificates");
  const coordination = naming.group("coordination");
  const discovery = naming.group("discovery");
  const events = naming.group("events");
  const networking = naming.group("networking");
  const node = naming.group("node");
  const rbac = naming.group("rbac.authorization");
  const storage = naming.group("storage");
  const apiVersion = `${rbac}/v1`;

  const bootstrapLabel = naming.label("bootstrapping");
  const autoupdate = naming.label("autoupdate", "rbac.authorization");
  // Upstream spells these labels with the RBAC group, not the label domain.
  const aggregateTo = (role: string) => `${rbac}/aggregate-to-${role}`;
  const meta = (name: string, labels: Record<string, string> = {}, namespace?: string) => ({
    name,
    ...(namespace ? { namespace } : {}),
    labels: { ...labels, [bootstrapLabel]: "rbac-defaults" },
    annotations: { [autoupdate]: "true" },
  });

  const clusterRole = (name: string, rules: readonly Json[], labels: Record<string, string> = {}): Json => ({
    apiVersion,
    kind: "ClusterRole",
    metadata: meta(name, labels),
    rules: [...rules],
  });
  const aggregated = (name: string, aggregateFrom: string, labels: Record<string, string> = {}): Json => ({
    apiVersion,
    kind: "ClusterRole",
    metadata: meta(name, labels),
    aggregationRule: { clusterRoleSelectors: [{ matchLabels: { [aggregateTo(aggregateFrom)]: "true" } }] },
  });
  const role = (namespace: string, name: string, rules: readonly Json[]): Json => ({
    apiVersion,
    kind: "Role",
    metadata: meta(name, {}, namespace),
    rules: [...rules],
  });

  type SubjectSpec = { users?: string[]; groups?: string[]; serviceAccounts?: [string, string][] };
  const subjects = (s: SubjectSpec) => [
    ...(s.groups ?? []).map((name) => ({ kind: "Group", apiGroup: rbac, name })),
    ...(s.users ?? []).map((name) => ({ kind: "User", apiGroup: rbac, name })),
    ...(s.serviceAccounts ?? []).map(([namespace, name]) => ({ kind: "ServiceAccount", name, namespace })),
  ];
  const clusterBinding = (roleName: string, s: SubjectSpec, name = roleName): Json => {
    const list = subjects(s);
    return {
      apiVersion,
      kind: "ClusterRoleBinding",
      metadata: meta(name),
      roleRef: { apiGroup: rbac, kind: "ClusterRole", name: roleName },
      ...(list.length > 0 ? { subjects: list } : {}),
    };
  };
  const roleBinding = (namespace: string, roleName: string, s: SubjectSpec, name = roleName): Json => ({
    apiVersion,
    kind: "RoleBinding",
    metadata: meta(name, {}, namespace),
    roleRef: { apiGroup: rbac, kind: "Role", name: roleName },
    subjects: subjects(s),
  });

  const eventsRule = rule(["create", "update", "patch"], [core, events], ["events"]);
  const signers = signerNames(naming);
  const certs = (suffix: string) => `system:${certificates}:${suffix}`;
  const signerPath = (signer: string) => signer.slice(signer.indexOf("/") + 1);
  const controller = (name: string) => `system:controller:${name}`;

  const nodeRules = [
    rule(["create"], [authentication], ["tokenreviews"]),
    rule(["create"], [authorization], ["subjectaccessreviews", "localsubjectaccessreviews"]),
    rule(READ, [core], ["services"]),
    rule(["create", "get", "list", "watch"], [core], ["nodes"]),
    rule(["update", "patch"], [core], ["nodes/status"]),
    rule(["update", "patch"], [core], ["nodes"]),
    rule(["create", "update", "patch"], [core], ["events"]),
    rule(READ, [core], ["pods"]),
    rule(["create", "delete"], [core], ["pods"]),
    rule(["update", "patch"], [core], ["pods/status"]),
    rule(["create"], [core], ["pods/eviction"]),
    rule(READ, [core], ["secrets", "configmaps"]),
    rule(["get"], [core], ["persistentvolumeclaims", "persistentvolumes"]),
    rule(["get"], [core], ["endpoints"]),
    rule(["create", "get", "list", "watch"], [certificates], ["certificatesigningrequests"]),
    rule(["get", "create", "update", "patch", "delete"], [coordination], ["leases"]),
    rule(["get"], [storage], ["volumeattachments"]),
    rule(["get", "update", "patch"], [core], ["persistentvolumeclaims/status"]),
    rule(["create"], [core], ["serviceaccounts/token"]),
    rule(["get", "watch", "list"], [storage], ["csidrivers"]),
    rule(["get", "create", "update", "patch", "delete"], [storage], ["csinodes"]),
    rule(READ, [node], ["runtimeclasses"]),
  ];

  const clusterRoles: Json[] = [
    // A root role that may do anything.
    clusterRole("cluster-admin", [rule(["*"], ["*"], ["*"]), urls(["*"], ["*"])]),
    // Enough to find out whether the server is ready and which APIs it serves.
    clusterRole("system:discovery", [
      urls(
        ["get"],
        [
          "/livez",
          "/readyz",
          "/healthz",
          "/version",
          "/version/",
          "/openapi",
          "/openapi/*",
          "/api",
          "/api/*",
          "/apis",
          "/apis/*",
        ],
      ),
    ]),
    clusterRole("system:monitoring", [
      urls(
        ["get"],
        ["/metrics", "/metrics/slis", "/livez", "/readyz", "/healthz", "/livez/*", "/readyz/*", "/healthz/*"],
      ),
    ]),
    // What any user may ask about themselves.
    clusterRole("system:basic-user", [
      rule(["create"], [authorization], ["selfsubjectaccessreviews", "selfsubjectrulesreviews"]),
      rule(["create"], [authentication], ["selfsubjectreviews"]),
    ]),
    // Insensitive server information, for anyone.
    clusterRole("system:public-info-viewer", [
      urls(["get"], ["/livez", "/readyz", "/healthz", "/version", "/version/"]),
    ]),
    // User-facing roles, filled by aggregation from the system:aggregate-to-* roles and any other
    // ClusterRole carrying the label.
    aggregated("admin", "admin"),
    aggregated("edit", "edit", { [aggregateTo("admin")]: "true" }),
    aggregated("view", "view", { [aggregateTo("edit")]: "true" }),
    clusterRole(
      "system:aggregate-to-admin",
      [
        rule(["create"], [authorization], ["localsubjectaccessreviews"]),
        rule(READ_WRITE, [rbac], ["roles", "rolebindings"]),
      ],
      { [aggregateTo("admin")]: "true" },
    ),
    clusterRole(
      "system:aggregate-to-edit",
      [
        // Reading what can be used to escalate.
        rule(
          READ,
          [core],
          ["pods/attach", "pods/proxy", "pods/exec", "pods/portforward", "secrets", "services/proxy"],
        ),
        rule(["impersonate"], [core], ["serviceaccounts"]),
        rule(WRITE, [core], ["pods", "pods/attach", "pods/proxy", "pods/exec", "pods/portforward"]),
        rule(["create"], [core], ["pods/eviction"]),
        rule(
          WRITE,
          [core],
          [
            "replicationcontrollers",
            "replicationcontrollers/scale",
            "serviceaccounts",
            "services",
            "services/proxy",
            "persistentvolumeclaims",
            "configmaps",
            "secrets",
          ],
        ),
        rule(["create"], [core], ["serviceaccounts/token"]),
        rule(
          WRITE,
          [apps],
          [
            "statefulsets",
            "statefulsets/scale",
            "daemonsets",
            "deployments",
            "deployments/scale",
            "deployments/rollback",
            "replicasets",
            "replicasets/scale",
          ],
        ),
        rule(WRITE, [autoscaling], ["horizontalpodautoscalers"]),
        rule(WRITE, [batch], ["jobs", "cronjobs"]),
        rule(
          WRITE,
          [extensions],
          [
            "daemonsets",
            "deployments",
            "deployments/scale",
            "deployments/rollback",
            "ingresses",
            "replicasets",
            "replicasets/scale",
            "replicationcontrollers/scale",
            "networkpolicies",
          ],
        ),
        rule(WRITE, [policy], ["poddisruptionbudgets"]),
        rule(WRITE, [networking], ["networkpolicies", "ingresses"]),
      ],
      { [aggregateTo("edit")]: "true" },
    ),
    // Read-only access to what cannot be used to escalate: no secrets, no roles or bindings.
    clusterRole(
      "system:aggregate-to-view",
      [
        rule(
          READ,
          [core],
          [
            "pods",
            "replicationcontrollers",
            "replicationcontrollers/scale",
            "serviceaccounts",
            "services",
            "services/status",
            "endpoints",
            "persistentvolumeclaims",
            "persistentvolumeclaims/status",
            "configmaps",
          ],
        ),
        rule(
          READ,
          [core],
          [
            "limitranges",
            "resourcequotas",
            "bindings",
            "events",
            "pods/status",
            "resourcequotas/status",
            "namespaces/status",
            "replicationcontrollers/status",
            "pods/log",
          ],
        ),
        // Reading namespaces within a namespace means reading that namespace.
        rule(READ, [core], ["namespaces"]),
        rule(READ, [discovery], ["endpointslices"]),
        rule(
          READ,
          [apps],
          [
            "controllerrevisions",
            "statefulsets",
            "statefulsets/status",
            "statefulsets/scale",
            "daemonsets",
            "daemonsets/status",
            "deployments",
            "deployments/status",
            "deployments/scale",
            "replicasets",
            "replicasets/status",
            "replicasets/scale",
          ],
        ),
        rule(READ, [autoscaling], ["horizontalpodautoscalers", "horizontalpodautoscalers/status"]),
        rule(READ, [batch], ["jobs", "cronjobs", "cronjobs/status", "jobs/status"]),
        rule(
          READ,
          [extensions],
          [
            "daemonsets",
            "daemonsets/status",
            "deployments",
            "deployments/scale",
            "deployments/status",
            "ingresses",
            "ingresses/status",
            "replicasets",
            "replicasets/scale",
            "replicasets/status",
            "replicationcontrollers/scale",
            "networkpolicies",
          ],
        ),
        rule(READ, [policy], ["poddisruptionbudgets", "poddisruptionbudgets/status"]),
        rule(READ, [networking], ["ingresses", "ingresses/status", "networkpolicies"]),
      ],
      { [aggregateTo("view")]: "true" },
    ),
    clusterRole("system:node", nodeRules),
    clusterRole("system:node-problem-detector", [
      rule(["get"], [core], ["nodes"]),
      rule(["patch"], [core], ["nodes/status"]),
      eventsRule,
    ]),
    clusterRole("system:kubelet-api-admin", [
      rule(READ, [core], ["nodes"]),
      rule(["proxy"], [core], ["nodes"]),
      rule(["*"], [core], ["nodes/proxy", "nodes/metrics", "nodes/stats", "nodes/log"]),
    ]),
    // Enough for a node to request its client certificate and wait for it.
    clusterRole("system:node-bootstrapper", [
      rule(["create", "get", "list", "watch"], [certificates], ["certificatesigningrequests"]),
    ]),
    clusterRole("system:auth-delegator", [
      rule(["create"], [authentication], ["tokenreviews"]),
      rule(["create"], [authorization], ["subjectaccessreviews"]),
    ]),
    clusterRole("system:kube-aggregator", [rule(READ, [core], ["services", "endpoints"])]),
    clusterRole("system:kube-controller-manager", [
      eventsRule,
      rule(["create"], [coordination], ["leases"]),
      rule(["get", "update"], [coordination], ["leases"], ["kube-controller-manager"]),
      rule(["create"], [core], ["secrets", "serviceaccounts"]),
      rule(["delete"], [core], ["secrets"]),
      rule(["get"], [core], ["namespaces", "secrets", "serviceaccounts", "configmaps"]),
      rule(["update"], [core], ["secrets", "serviceaccounts"]),
      rule(["create"], [authentication], ["tokenreviews"]),
      rule(["create"], [authorization], ["subjectaccessreviews"]),
      rule(["list", "watch"], ["*"], ["*"]),
      rule(["create"], [core], ["serviceaccounts/token"]),
    ]),
    clusterRole("system:kube-dns", [rule(["list", "watch"], [core], ["endpoints", "services"])]),
    clusterRole("system:volume-scheduler", [
      rule(READ_UPDATE, [core], ["persistentvolumes"]),
      rule(READ, [storage], ["storageclasses"]),
      rule(READ_UPDATE, [core], ["persistentvolumeclaims"]),
    ]),
    clusterRole("system:node-proxier", [
      rule(["list", "watch"], [core], ["services", "endpoints"]),
      rule(READ, [core], ["nodes"]),
      eventsRule,
      rule(["list", "watch"], [discovery], ["endpointslices"]),
    ]),
    clusterRole("system:kube-scheduler", [
      eventsRule,
      rule(["create"], [coordination], ["leases"]),
      rule(["get", "update"], [coordination], ["leases"], ["kube-scheduler"]),
      rule(READ, [core], ["nodes"]),
      rule(["get", "list", "watch", "delete"], [core], ["pods"]),
      rule(["create"], [core], ["pods/binding", "bindings"]),
      rule(["patch", "update"], [core], ["pods/status"]),
      rule(READ, [core], ["services", "replicationcontrollers"]),
      rule(READ, [apps, extensions], ["replicasets"]),
      rule(READ, [apps], ["statefulsets"]),
      rule(READ, [policy], ["poddisruptionbudgets"]),
      rule(READ, [core], ["persistentvolumeclaims", "persistentvolumes"]),
      rule(["create"], [authentication], ["tokenreviews"]),
      rule(["create"], [authorization], ["subjectaccessreviews"]),
      rule(READ, [storage], ["csinodes"]),
      rule(READ, [core], ["namespaces"]),
      rule(READ, [storage], ["csidrivers", "csistoragecapacities"]),
    ]),
    clusterRole("system:service-account-issuer-discovery", [
      urls(
        ["get"],
        [
          "/.well-known/openid-configuration",
          "/.well-known/openid-configuration/",
          "/openid/v1/jwks",
          "/openid/v1/jwks/",
        ],
      ),
    ]),
    // Certificate requests: who may ask for node client certificates, and who approves which signer.
    clusterRole(certs("certificatesigningrequests:nodeclient"), [
      rule(["create"], [certificates], ["certificatesigningrequests/nodeclient"]),
    ]),
    clusterRole(certs("certificatesigningrequests:selfnodeclient"), [
      rule(["create"], [certificates], ["certificatesigningrequests/selfnodeclient"]),
    ]),
    ...[
      signers.legacyUnknown,
      signers.kubeletServing,
      signers.apiserverClient,
      signers.apiserverClientKubelet,
    ].map((signer) =>
      clusterRole(certs(`${signerPath(signer)}-approver`), [
        rule(["approve"], [certificates], ["signers"], [signer]),
      ]),
    ),
    // The gateway's controllers.
    clusterRole(controller("namespace-controller"), [
      rule(["get", "list", "watch", "delete"], [core], ["namespaces"]),
      rule(["update"], [core], ["namespaces/finalize", "namespaces/status"]),
      rule(["get", "list", "delete", "deletecollection"], ["*"], ["*"]),
    ]),
    clusterRole(controller("serviceaccount-controller"), [
      rule(READ, [core], ["namespaces"]),
      rule(["create", ...READ], [core], ["serviceaccounts"]),
      eventsRule,
    ]),
    clusterRole(controller("token-controller"), [
      rule([...READ, "create", "update", "patch", "delete"], [core], ["secrets"]),
      rule([...READ, "update", "patch"], [core], ["serviceaccounts"]),
      eventsRule,
    ]),
    clusterRole(controller("root-ca-cert-publisher"), [
      rule(READ, [core], ["namespaces"]),
      rule(["create", "update", ...READ], [core], ["configmaps"]),
      eventsRule,
    ]),
    clusterRole(controller("pvc-protection-controller"), [
      rule(
        ["get", "list", "watch", "update", "patch"],
        [core],
        ["persistentvolumeclaims", "persistentvolumes"],
      ),
      rule(READ, [core], ["pods"]),
      eventsRule,
    ]),
    clusterRole(controller("generic-garbage-collector"), [
      rule(["get", "list", "watch", "patch", "update", "delete"], ["*"], ["*"]),
      eventsRule,
    ]),
    clusterRole(controller("clusterrole-aggregation-controller"), [
      // escalate: it writes rules it does not hold itself.
      rule(["escalate", "get", "list", "patch", "update", "watch"], [rbac], ["clusterroles"]),
    ]),
    clusterRole(controller("apiservice-registration-controller"), [
      rule(["create", "update", "delete", ...READ], [naming.group("apiregistration")], ["apiservices"]),
      rule(["update"], [naming.group("apiregistration")], ["apiservices/status"]),
      rule(READ, [naming.group("apiextensions")], ["customresourcedefinitions"]),
    ]),
    clusterRole(controller("certificate-controller"), [
      rule(["delete", ...READ], [certificates], ["certificatesigningrequests"]),
      rule(
        ["update"],
        [certificates],
        ["certificatesigningrequests/status", "certificatesigningrequests/approval"],
      ),
      rule(["approve"], [certificates], ["signers"], [signers.apiserverClientKubelet]),
      rule(
        ["sign"],
        [certificates],
        ["signers"],
        [
          signers.legacyUnknown,
          signers.apiserverClient,
          signers.apiserverClientKubelet,
          signers.kubeletServing,
        ],
      ),
      rule(["create"], [authorization], ["subjectaccessreviews"]),
      eventsRule,
    ]),
  ];

  const controllerBindings = [
    "namespace-controller",
    "serviceaccount-controller",
    "token-controller",
    "root-ca-cert-publisher",
    "pvc-protection-controller",
    "clusterrole-aggregation-controller",
    "apiservice-registration-controller",
    "certificate-controller",
    "generic-garbage-collector",
  ].map((name) => clusterBinding(controller(name), { users: [controller(name)] }));

  const clusterRoleBindings: Json[] = [
    clusterBinding("cluster-admin", { groups: ["system:masters"] }),
    clusterBinding("system:monitoring", { groups: ["system:monitoring"] }),
    clusterBinding("system:discovery", { groups: [SYSTEM_AUTHENTICATED] }),
    clusterBinding("system:basic-user", { groups: [SYSTEM_AUTHENTICATED] }),
    clusterBinding("system:public-info-viewer", { groups: [SYSTEM_AUTHENTICATED, SYSTEM_UNAUTHENTICATED] }),
    clusterBinding("system:node-proxier", { users: ["system:kube-proxy"] }),
    clusterBinding("system:kube-controller-manager", { users: ["system:kube-controller-manager"] }),
    clusterBinding("system:kube-dns", { serviceAccounts: [[naming.systemNamespace, "kube-dns"]] }),
    clusterBinding("system:kube-scheduler", { users: ["system:kube-scheduler"] }),
    clusterBinding("system:volume-scheduler", { users: ["system:kube-scheduler"] }),
    // Kept without subjects, as upstream: the Node authorizer grants nodes their access.
    clusterBinding("system:node", {}),
    clusterBinding("system:service-account-issuer-discovery", { groups: ["system:serviceaccounts"] }),
    ...controllerBindings,
  ];

  const system = naming.systemNamespace;
  const pub = naming.publicNamespace;
  const roles: Json[] = [
    role(system, "extension-apiserver-authentication-reader", [
      rule(READ, [core], ["configmaps"], ["extension-apiserver-authentication"]),
    ]),
    role(system, controller("bootstrap-signer"), [rule(READ, [core], ["secrets"])]),
    role(system, controller("token-cleaner"), [rule(["delete", ...READ], [core], ["secrets"]), eventsRule]),
    role(pub, controller("bootstrap-signer"), [
      rule(READ, [core], ["configmaps"]),
      rule(["update"], [core], ["configmaps"], ["cluster-info"]),
      eventsRule,
    ]),
    // Anyone may read the signed cluster-info, which is how a joining node finds the server.
    role(pub, "kubeadm:bootstrap-signer-clusterinfo", [
      rule(["get"], [core], ["configmaps"], ["cluster-info"]),
    ]),
  ];
  const roleBindings: Json[] = [
    roleBinding(
      system,
      "extension-apiserver-authentication-reader",
      { users: ["system:kube-controller-manager", "system:kube-scheduler"] },
      "system::extension-apiserver-authentication-reader",
    ),
    roleBinding(system, controller("bootstrap-signer"), { users: [controller("bootstrap-signer")] }),
    roleBinding(system, controller("token-cleaner"), { users: [controller("token-cleaner")] }),
    roleBinding(pub, controller("bootstrap-signer"), { users: [controller("bootstrap-signer")] }),
    roleBinding(pub, "kubeadm:bootstrap-signer-clusterinfo", { users: ["system:anonymous"] }),
  ];
  return { clusterRoles, clusterRoleBindings, roles, roleBindings };
}
