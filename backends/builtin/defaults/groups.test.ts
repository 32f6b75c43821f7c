// Defaults of the smaller API groups: networking, discovery, storage, rbac, scheduling,
// admissionregistration, flowcontrol, apiextensions, apiregistration and authentication; and kinds upstream does
// not default at all.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { naming } from "../../naming/naming.ts";
import { type DefaultingCase, defaulted } from "./testing.ts";

const RBAC_GROUP = naming("cluster").group("rbac.authorization");
const RBAC_GROUP_KUBERNETES = naming("kubernetes").group("rbac.authorization");
const WEBHOOK_SERVICE = { namespace: "hooks", name: "hook", path: "/mutate" };
const RULE = { operations: ["CREATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["pods"] };
const MATCH_DEFAULTS = { matchPolicy: "Equivalent", namespaceSelector: {}, objectSelector: {} };

const networking: DefaultingCase[] = [
  {
    name: "NetworkPolicy: ingress and egress types, TCP ports",
    type: "networking/v1.NetworkPolicy",
    input: {
      metadata: { name: "np" },
      spec: {
        podSelector: { matchLabels: { app: "db" } },
        ingress: [{ from: [{ podSelector: { matchLabels: { app: "web" } } }], ports: [{ port: 5432 }] }],
        egress: [{ ports: [{ port: 53, protocol: "UDP" }, { port: 53 }] }],
      },
    },
    expected: {
      metadata: { name: "np" },
      spec: {
        podSelector: { matchLabels: { app: "db" } },
        ingress: [
          {
            from: [{ podSelector: { matchLabels: { app: "web" } } }],
            ports: [{ port: 5432, protocol: "TCP" }],
          },
        ],
        egress: [
          {
            ports: [
              { port: 53, protocol: "UDP" },
              { port: 53, protocol: "TCP" },
            ],
          },
        ],
        policyTypes: ["Ingress", "Egress"],
      },
    },
  },
  {
    name: "NetworkPolicy: deny all ingress",
    type: "networking/v1.NetworkPolicy",
    input: { metadata: { name: "deny" }, spec: { podSelector: {} } },
    expected: { metadata: { name: "deny" }, spec: { podSelector: {}, policyTypes: ["Ingress"] } },
  },
  {
    name: "IngressClass: parameters are cluster-scoped",
    type: "networking/v1.IngressClass",
    input: {
      metadata: { name: "nginx" },
      spec: {
        controller: "example.com/ingress",
        parameters: { apiGroup: "example.com", kind: "Params", name: "p" },
      },
    },
    expected: {
      metadata: { name: "nginx" },
      spec: {
        controller: "example.com/ingress",
        parameters: { apiGroup: "example.com", kind: "Params", name: "p", scope: "Cluster" },
      },
    },
  },
  {
    name: "EndpointSlice: port name and protocol",
    type: "discovery/v1.EndpointSlice",
    input: {
      metadata: { name: "web-abc" },
      addressType: "IPv4",
      endpoints: [{ addresses: ["10.1.0.5"], conditions: { ready: true } }],
      ports: [{ port: 8080 }, { name: "dns", port: 53, protocol: "UDP" }],
    },
    expected: {
      metadata: { name: "web-abc" },
      addressType: "IPv4",
      endpoints: [{ addresses: ["10.1.0.5"], conditions: { ready: true } }],
      ports: [
        { port: 8080, name: "", protocol: "TCP" },
        { name: "dns", port: 53, protocol: "UDP" },
      ],
    },
  },
];

const storage: DefaultingCase[] = [
  {
    name: "StorageClass: reclaim and binding modes",
    type: "storage/v1.StorageClass",
    input: { metadata: { name: "fast" }, provisioner: "csi.example.com", parameters: { type: "ssd" } },
    expected: {
      metadata: { name: "fast" },
      provisioner: "csi.example.com",
      parameters: { type: "ssd" },
      reclaimPolicy: "Delete",
      volumeBindingMode: "Immediate",
    },
  },
  {
    name: "CSIDriver: every capability has a value",
    type: "storage/v1.CSIDriver",
    input: { metadata: { name: "csi.example.com" }, spec: { podInfoOnMount: true } },
    expected: {
      metadata: { name: "csi.example.com" },
      spec: {
        attachRequired: true,
        podInfoOnMount: true,
        storageCapacity: false,
        fsGroupPolicy: "ReadWriteOnceWithFSType",
        volumeLifecycleModes: ["Persistent"],
        requiresRepublish: false,
        seLinuxMount: false,
      },
    },
  },
  {
    name: "VolumeAttachment: an inline volume spec gets the volume source defaults only",
    type: "storage/v1.VolumeAttachment",
    input: {
      metadata: { name: "va" },
      spec: {
        attacher: "csi.example.com",
        nodeName: "n1",
        source: {
          inlineVolumeSpec: { capacity: { storage: "1Gi" }, iscsi: { targetPortal: "p", iqn: "q", lun: 1 } },
        },
      },
    },
    expected: {
      metadata: { name: "va" },
      spec: {
        attacher: "csi.example.com",
        nodeName: "n1",
        source: {
          inlineVolumeSpec: {
            capacity: { storage: "1Gi" },
            iscsi: { targetPortal: "p", iqn: "q", lun: 1, iscsiInterface: "default" },
          },
        },
      },
    },
  },
];

const rbac: DefaultingCase[] = [
  {
    name: "RoleBinding: role reference and user and group subjects are in the RBAC group",
    type: "rbac/v1.RoleBinding",
    input: {
      metadata: { name: "rb", namespace: "ns" },
      roleRef: { kind: "Role", name: "reader" },
      subjects: [
        { kind: "User", name: "alice" },
        { kind: "ServiceAccount", name: "robot", namespace: "ns" },
        { kind: "Group", name: "devs" },
      ],
    },
    expected: {
      metadata: { name: "rb", namespace: "ns" },
      roleRef: { kind: "Role", name: "reader", apiGroup: RBAC_GROUP },
      subjects: [
        { kind: "User", name: "alice", apiGroup: RBAC_GROUP },
        { kind: "ServiceAccount", name: "robot", namespace: "ns" },
        { kind: "Group", name: "devs", apiGroup: RBAC_GROUP },
      ],
    },
  },
  {
    name: "ClusterRoleBinding: the kubernetes preset's group",
    type: "rbac/v1.ClusterRoleBinding",
    preset: "kubernetes",
    input: {
      metadata: { name: "crb" },
      roleRef: { kind: "ClusterRole", name: "view" },
      subjects: [{ kind: "Group", name: "g" }],
    },
    expected: {
      metadata: { name: "crb" },
      roleRef: { kind: "ClusterRole", name: "view", apiGroup: RBAC_GROUP_KUBERNETES },
      subjects: [{ kind: "Group", name: "g", apiGroup: RBAC_GROUP_KUBERNETES }],
    },
  },
  {
    name: "PriorityClass: preemption policy",
    type: "scheduling/v1.PriorityClass",
    input: { metadata: { name: "high" }, value: 1000000, description: "important" },
    expected: {
      metadata: { name: "high" },
      value: 1000000,
      description: "important",
      preemptionPolicy: "PreemptLowerPriority",
    },
  },
];

const admission: DefaultingCase[] = [
  {
    name: "MutatingWebhookConfiguration: policies, selectors, timeout, reinvocation, rule scope, port",
    type: "admissionregistration/v1.MutatingWebhookConfiguration",
    input: {
      metadata: { name: "inject" },
      webhooks: [
        {
          name: "inject.example.com",
          clientConfig: { service: WEBHOOK_SERVICE, caBundle: "Y2E=" },
          rules: [RULE],
          sideEffects: "None",
          admissionReviewVersions: ["v1"],
        },
      ],
    },
    expected: {
      metadata: { name: "inject" },
      webhooks: [
        {
          name: "inject.example.com",
          clientConfig: { service: { ...WEBHOOK_SERVICE, port: 443 }, caBundle: "Y2E=" },
          rules: [{ ...RULE, scope: "*" }],
          failurePolicy: "Fail",
          ...MATCH_DEFAULTS,
          sideEffects: "None",
          timeoutSeconds: 10,
          admissionReviewVersions: ["v1"],
          reinvocationPolicy: "Never",
        },
      ],
    },
  },
  {
    name: "ValidatingWebhookConfiguration: a URL webhook with its own settings",
    type: "admissionregistration/v1.ValidatingWebhookConfiguration",
    input: {
      metadata: { name: "check" },
      webhooks: [
        {
          name: "check.example.com",
          clientConfig: { url: "https://check.example.com/" },
          rules: [{ ...RULE, scope: "Namespaced" }],
          failurePolicy: "Ignore",
          namespaceSelector: { matchLabels: { checked: "yes" } },
          sideEffects: "None",
          timeoutSeconds: 3,
          admissionReviewVersions: ["v1"],
        },
      ],
    },
    expected: {
      metadata: { name: "check" },
      webhooks: [
        {
          name: "check.example.com",
          clientConfig: { url: "https://check.example.com/" },
          rules: [{ ...RULE, scope: "Namespaced" }],
          failurePolicy: "Ignore",
          matchPolicy: "Equivalent",
          namespaceSelector: { matchLabels: { checked: "yes" } },
          objectSelector: {},
          sideEffects: "None",
          timeoutSeconds: 3,
          admissionReviewVersions: ["v1"],
        },
      ],
    },
  },
  {
    name: "ValidatingAdmissionPolicy: failure policy, match resources, rule scope",
    type: "admissionregistration/v1alpha1.ValidatingAdmissionPolicy",
    input: {
      metadata: { name: "replicas" },
      spec: {
        matchConstraints: { resourceRules: [{ ...RULE, resources: ["deployments"], apiGroups: ["apps"] }] },
        validations: [{ expression: "object.spec.replicas <= 5" }],
      },
    },
    expected: {
      metadata: { name: "replicas" },
      spec: {
        failurePolicy: "Fail",
        matchConstraints: {
          resourceRules: [{ ...RULE, resources: ["deployments"], apiGroups: ["apps"], scope: "*" }],
          ...MATCH_DEFAULTS,
        },
        validations: [{ expression: "object.spec.replicas <= 5" }],
      },
    },
  },
  {
    name: "ValidatingAdmissionPolicyBinding: match resources when given",
    type: "admissionregistration/v1alpha1.ValidatingAdmissionPolicyBinding",
    input: {
      metadata: { name: "replicas-prod" },
      spec: {
        policyName: "replicas",
        matchResources: { namespaceSelector: { matchLabels: { env: "prod" } } },
      },
    },
    expected: {
      metadata: { name: "replicas-prod" },
      spec: {
        policyName: "replicas",
        matchResources: {
          namespaceSelector: { matchLabels: { env: "prod" } },
          matchPolicy: "Equivalent",
          objectSelector: {},
        },
      },
    },
  },
];

const flowcontrol: DefaultingCase[] = [
  {
    name: "FlowSchema v1beta3: matching precedence",
    type: "flowcontrol/v1beta3.FlowSchema",
    input: {
      metadata: { name: "fs" },
      spec: {
        priorityLevelConfiguration: { name: "workload-low" },
        rules: [
          {
            subjects: [{ kind: "Group", group: { name: "devs" } }],
            nonResourceRules: [{ verbs: ["*"], nonResourceURLs: ["*"] }],
          },
        ],
      },
    },
    expected: {
      metadata: { name: "fs" },
      spec: {
        priorityLevelConfiguration: { name: "workload-low" },
        matchingPrecedence: 1000,
        rules: [
          {
            subjects: [{ kind: "Group", group: { name: "devs" } }],
            nonResourceRules: [{ verbs: ["*"], nonResourceURLs: ["*"] }],
          },
        ],
      },
    },
  },
  {
    name: "PriorityLevelConfiguration v1beta3: shares (0 is replaced in 1.27), lendable percent, queuing",
    type: "flowcontrol/v1beta3.PriorityLevelConfiguration",
    input: {
      metadata: { name: "pl" },
      spec: {
        type: "Limited",
        limited: { nominalConcurrencyShares: 0, limitResponse: { type: "Queue", queuing: { queues: 16 } } },
      },
    },
    expected: {
      metadata: { name: "pl" },
      spec: {
        type: "Limited",
        limited: {
          nominalConcurrencyShares: 30,
          lendablePercent: 0,
          limitResponse: { type: "Queue", queuing: { queues: 16, handSize: 8, queueLengthLimit: 50 } },
        },
      },
    },
  },
  {
    name: "PriorityLevelConfiguration v1beta2: assured shares; a rejecting level has no queuing",
    type: "flowcontrol/v1beta2.PriorityLevelConfiguration",
    input: {
      metadata: { name: "pl" },
      spec: { type: "Limited", limited: { lendablePercent: 50, limitResponse: { type: "Reject" } } },
    },
    expected: {
      metadata: { name: "pl" },
      spec: {
        type: "Limited",
        limited: { assuredConcurrencyShares: 30, lendablePercent: 50, limitResponse: { type: "Reject" } },
      },
    },
  },
  {
    name: "PriorityLevelConfiguration v1beta3: an exempt level has nothing to default in 1.27",
    type: "flowcontrol/v1beta3.PriorityLevelConfiguration",
    input: { metadata: { name: "exempt" }, spec: { type: "Exempt" } },
    expected: { metadata: { name: "exempt" }, spec: { type: "Exempt" } },
  },
];

const authentication: DefaultingCase[] = [
  {
    name: "TokenRequest: one hour",
    type: "authentication/v1.TokenRequest",
    input: { spec: { audiences: ["https://example.com"] } },
    expected: { spec: { audiences: ["https://example.com"], expirationSeconds: 3600 } },
  },
];

const SCHEMA = { openAPIV3Schema: { type: "object", properties: { spec: { type: "object" } } } };

const extensions: DefaultingCase[] = [
  {
    name: "CustomResourceDefinition: names, conversion, stored versions",
    type: "apiextensions/v1.CustomResourceDefinition",
    input: {
      metadata: { name: "widgets.example.com" },
      spec: {
        group: "example.com",
        names: { plural: "widgets", kind: "Widget" },
        scope: "Namespaced",
        versions: [
          { name: "v1alpha1", served: true, storage: false, schema: SCHEMA },
          { name: "v1", served: true, storage: true, schema: SCHEMA },
        ],
      },
    },
    expected: {
      metadata: { name: "widgets.example.com" },
      spec: {
        group: "example.com",
        names: { plural: "widgets", kind: "Widget", singular: "widget", listKind: "WidgetList" },
        scope: "Namespaced",
        versions: [
          { name: "v1alpha1", served: true, storage: false, schema: SCHEMA },
          { name: "v1", served: true, storage: true, schema: SCHEMA },
        ],
        conversion: { strategy: "None" },
      },
      status: { storedVersions: ["v1"] },
    },
  },
  {
    name: "CustomResourceDefinition: a conversion webhook's service port; stored versions kept",
    type: "apiextensions/v1.CustomResourceDefinition",
    input: {
      metadata: { name: "gadgets.example.com" },
      spec: {
        group: "example.com",
        names: { plural: "gadgets", singular: "gadget", kind: "Gadget", listKind: "GadgetList" },
        scope: "Cluster",
        versions: [{ name: "v2", served: true, storage: true, schema: SCHEMA }],
        conversion: {
          strategy: "Webhook",
          webhook: {
            clientConfig: { service: { namespace: "conv", name: "conv" } },
            conversionReviewVersions: ["v1"],
          },
        },
      },
      status: { storedVersions: ["v1", "v2"] },
    },
    expected: {
      metadata: { name: "gadgets.example.com" },
      spec: {
        group: "example.com",
        names: { plural: "gadgets", singular: "gadget", kind: "Gadget", listKind: "GadgetList" },
        scope: "Cluster",
        versions: [{ name: "v2", served: true, storage: true, schema: SCHEMA }],
        conversion: {
          strategy: "Webhook",
          webhook: {
            clientConfig: { service: { namespace: "conv", name: "conv", port: 443 } },
            conversionReviewVersions: ["v1"],
          },
        },
      },
      status: { storedVersions: ["v1", "v2"] },
    },
  },
  {
    name: "APIService: service port",
    type: "apiregistration/v1.APIService",
    input: {
      metadata: { name: "v1beta1.metrics.example.com" },
      spec: {
        group: "metrics.example.com",
        version: "v1beta1",
        service: { namespace: "monitoring", name: "metrics" },
        groupPriorityMinimum: 100,
        versionPriority: 100,
      },
    },
    expected: {
      metadata: { name: "v1beta1.metrics.example.com" },
      spec: {
        group: "metrics.example.com",
        version: "v1beta1",
        service: { namespace: "monitoring", name: "metrics", port: 443 },
        groupPriorityMinimum: 100,
        versionPriority: 100,
      },
    },
  },
];

/** Kinds upstream 1.27 does not default: they come back unchanged. */
const untouched: [string, unknown][] = [
  [
    "policy/v1.PodDisruptionBudget",
    { metadata: { name: "pdb" }, spec: { minAvailable: 1, selector: { matchLabels: { app: "web" } } } },
  ],
  [
    "networking/v1.Ingress",
    {
      metadata: { name: "ing" },
      spec: {
        rules: [
          {
            host: "example.com",
            http: {
              paths: [
                {
                  path: "/",
                  pathType: "Prefix",
                  backend: { service: { name: "web", port: { number: 80 } } },
                },
              ],
            },
          },
        ],
      },
    },
  ],
  [
    "certificates/v1.CertificateSigningRequest",
    {
      metadata: { name: "csr" },
      spec: { request: "Y3Ny", signerName: "example.com/signer", usages: ["client auth"] },
    },
  ],
  [
    "node/v1.RuntimeClass",
    { metadata: { name: "gvisor" }, handler: "runsc", overhead: { podFixed: { cpu: "0.0001" } } },
  ],
  [
    "coordination/v1.Lease",
    { metadata: { name: "l" }, spec: { holderIdentity: "a", leaseDurationSeconds: 15 } },
  ],
  ["core/v1.ConfigMap", { metadata: { name: "cm" } }],
];

describe("defaults of the other groups", () => {
  for (const [group, cases] of Object.entries({
    networking,
    storage,
    rbac,
    admission,
    flowcontrol,
    extensions,
    authentication,
  })) {
    describe(group, () => {
      for (const c of cases) {
        it(c.name, () => assert.deepEqual(defaulted(c.type, c.input, c.preset), c.expected));
      }
    });
  }

  describe("kinds without defaults", () => {
    for (const [type, object] of untouched) {
      it(type, () => assert.deepEqual(defaulted(type, object), object));
    }
  });
});
