// networking/v1: Ingress and IngressClass (HTTP routing into the cluster) and NetworkPolicy
// (which traffic may reach or leave a set of pods).
import { atomic, f, inline, mapList, mergeBy, pkg, required, t } from "./model.ts";

const PROTOCOLS = ["SCTP", "TCP", "UDP"];

export const NETWORKING_V1 = pkg("networking/v1", "k8s.io.api.networking.v1", {
  HTTPIngressPath: t(
    "One path of an HTTP rule together with the backend that receives the requests it matches.",
    {
      path: f(
        1,
        "string",
        "The request path to compare against; it starts with '/' and must be set when pathType is Exact or Prefix.",
      ),
      pathType: f(
        3,
        "string",
        "How the path is compared: Exact (the whole path, case-sensitive), Prefix (element-wise on '/'-separated segments) or ImplementationSpecific (left to the ingress class).",
        {
          required: true,
          enum: ["Exact", "ImplementationSpecific", "Prefix"],
          pointer: true,
          omitEmpty: false,
        },
      ),
      backend: f(2, "IngressBackend", "Where matching requests are sent.", { ...required, omitEmpty: false }),
    },
  ),
  HTTPIngressRuleValue: t("The HTTP paths of a rule, each pointing at a backend.", {
    paths: f(1, "[]HTTPIngressPath", "The paths this rule routes, each with its backend.", {
      ...atomic,
      ...required,
      omitEmpty: false,
    }),
  }),
  IPBlock: t("A range of IP addresses in CIDR notation, minus some sub-ranges, used as a policy peer.", {
    cidr: f(1, "string", 'The address range, such as "10.0.0.0/16" or "fd00::/64".', {
      ...required,
      omitEmpty: false,
    }),
    except: f(2, "[]string", "Sub-ranges, also in CIDR notation, to leave out; each must lie inside cidr."),
  }),
  Ingress: t(
    "Rules that route external HTTP and HTTPS traffic to services by host and path, with optional TLS termination.",
    {
      metadata: f(1, "meta/v1.ObjectMeta", "The object's metadata: name, namespace, labels and so on."),
      spec: f(2, "IngressSpec", "The routing the user asks for."),
      status: f(
        3,
        "IngressStatus",
        "What the controller serving this ingress reports, such as its addresses.",
      ),
    },
  ),
  IngressBackend: t(
    "The destination of routed traffic: a service port or another object in the same namespace.",
    {
      service: f(
        4,
        "IngressServiceBackend",
        "A service to send traffic to; cannot be combined with resource.",
        { pointer: true },
      ),
      resource: f(
        3,
        "core/v1.TypedLocalObjectReference",
        "Another object in the ingress's namespace that handles the traffic; cannot be combined with service.",
        { pointer: true },
      ),
    },
  ),
  IngressClass: t(
    "A named kind of ingress, tied to the controller that implements it; ingresses pick one by name.",
    {
      metadata: f(1, "meta/v1.ObjectMeta", "The object's metadata: name, labels, annotations and so on."),
      spec: f(2, "IngressClassSpec", "Which controller implements this class and with what settings."),
    },
  ),
  IngressClassParametersReference: t(
    "Points at the object, cluster-wide or namespaced, that holds extra settings for an ingress class's controller.",
    {
      apiGroup: f(
        1,
        "string",
        "API group of the referenced object; empty means the core group, and any other group must be named.",
        { protoName: "aPIGroup", pointer: true },
      ),
      kind: f(2, "string", "Kind of the referenced object.", { ...required, omitEmpty: false }),
      name: f(3, "string", "Name of the referenced object.", { ...required, omitEmpty: false }),
      scope: f(
        4,
        "string",
        'Whether the object is "Cluster"-scoped (the default) or lives in a "Namespace".',
        { pointer: true, omitEmpty: false },
      ),
      namespace: f(
        5,
        "string",
        'Namespace of the referenced object; set it exactly when scope is "Namespace".',
        { pointer: true },
      ),
    },
  ),
  IngressClassSpec: t("Describes an ingress class: its controller and optional settings.", {
    controller: f(
      1,
      "string",
      'Name of the controller that serves this class, a domain-prefixed path of at most 250 characters such as "example.com/ingress-controller". Cannot be changed.',
    ),
    parameters: f(
      2,
      "IngressClassParametersReference",
      "A reference to a custom object with additional configuration for the controller, if it needs any.",
      { pointer: true },
    ),
  }),
  IngressLoadBalancerIngress: t(
    "One address at which the load balancer in front of an ingress accepts traffic.",
    {
      ip: f(1, "string", "IP address of the entry point, for load balancers reached by IP."),
      hostname: f(2, "string", "DNS name of the entry point, for load balancers reached by name."),
      ports: f(4, "[]IngressPortStatus", "The ports open on this entry point and their state.", atomic),
    },
  ),
  IngressLoadBalancerStatus: t("The state of the load balancer that serves an ingress.", {
    ingress: f(1, "[]IngressLoadBalancerIngress", "The entry points of the load balancer."),
  }),
  IngressPortStatus: t("The state of one port of an ingress load balancer.", {
    port: f(1, "int32", "The port number.", { omitEmpty: false }),
    protocol: f(2, "string", "The port's protocol: TCP, UDP or SCTP.", { omitEmpty: false }),
    error: f(
      3,
      "string",
      "A problem with this port, if any, as a CamelCase reason; provider-specific reasons carry a domain prefix.",
      { pointer: true },
    ),
  }),
  IngressRule: t("Routes requests for one host (or for every host) to backends according to a rule value.", {
    host: f(
      1,
      "string",
      'The DNS name the request\'s Host header must match, either exact ("foo.example.com") or with a single leading wildcard label ("*.example.com"); no IPs or ports. Empty matches every host.',
    ),
    ingressRuleValue: f(
      2,
      "IngressRuleValue",
      "The routing for this host; its fields appear directly in the rule. Only HTTP rules exist today.",
      inline,
    ),
  }),
  IngressRuleValue: t("How requests that matched a rule's host are routed; only one kind may be set.", {
    http: f(1, "HTTPIngressRuleValue", "HTTP routing by path.", { pointer: true }),
  }),
  IngressServiceBackend: t("A service and port used as an ingress backend.", {
    name: f(1, "string", "Name of the service, which must be in the ingress's namespace.", {
      ...required,
      omitEmpty: false,
    }),
    port: f(2, "ServiceBackendPort", "The service port to use, by name or number; one of the two is needed."),
  }),
  IngressSpec: t("The routing an ingress asks for: rules, a fallback backend and TLS settings.", {
    ingressClassName: f(
      4,
      "string",
      "Name of the IngressClass whose controller should serve this ingress; preferred over the older class annotation.",
      { pointer: true },
    ),
    defaultBackend: f(
      1,
      "IngressBackend",
      "Receives requests no rule matches; needed when there are no rules. Without it, unmatched requests are handled as the controller sees fit.",
      { pointer: true },
    ),
    tls: f(
      2,
      "[]IngressTLS",
      "TLS settings; all entries share port 443 and are told apart by SNI host name when the controller supports it.",
      atomic,
    ),
    rules: f(3, "[]IngressRule", "Host rules; requests that match none go to the default backend.", atomic),
  }),
  IngressStatus: t("What is observed about an ingress.", {
    loadBalancer: f(1, "IngressLoadBalancerStatus", "The state of the load balancer serving the ingress."),
  }),
  IngressTLS: t("TLS termination for a set of hosts using the certificate in a secret.", {
    hosts: f(
      1,
      "[]string",
      "Host names the certificate covers, matching the names in the secret; when empty, the controller's wildcard host is used.",
      atomic,
    ),
    secretName: f(
      2,
      "string",
      "Secret holding the certificate and key for port 443; may be left empty to route by SNI host alone.",
    ),
  }),
  NetworkPolicy: t("Declares which network traffic is allowed to and from a selected group of pods.", {
    metadata: f(1, "meta/v1.ObjectMeta", "The object's metadata: name, namespace, labels and so on."),
    spec: f(2, "NetworkPolicySpec", "The pods the policy applies to and the traffic it permits."),
    status: f(3, "NetworkPolicyStatus", "Observed state of the policy."),
  }),
  NetworkPolicyEgressRule: t(
    "Outgoing traffic permitted from the selected pods; it must match both the ports and the destinations.",
    {
      ports: f(
        1,
        "[]NetworkPolicyPort",
        "Destination ports allowed; any one may match. Empty or absent means every port.",
      ),
      to: f(
        2,
        "[]NetworkPolicyPeer",
        "Destinations allowed; any one may match. Empty or absent means every destination.",
      ),
    },
  ),
  NetworkPolicyIngressRule: t(
    "Incoming traffic permitted to the selected pods; it must match both the ports and the sources.",
    {
      ports: f(
        1,
        "[]NetworkPolicyPort",
        "Ports on the pods that may be reached; any one may match. Empty or absent means every port.",
      ),
      from: f(
        2,
        "[]NetworkPolicyPeer",
        "Sources allowed; any one may match. Empty or absent means every source.",
      ),
    },
  ),
  NetworkPolicyPeer: t(
    "A source or destination of traffic: pods by label, namespaces by label, both together, or an IP range.",
    {
      podSelector: f(
        1,
        "meta/v1.LabelSelector",
        "Pods to match by label (an empty selector matches all), in the policy's namespace or in the namespaces namespaceSelector picks.",
        { pointer: true },
      ),
      namespaceSelector: f(
        2,
        "meta/v1.LabelSelector",
        "Namespaces to match by label (an empty selector matches all); combined with podSelector when both are set.",
        { pointer: true },
      ),
      ipBlock: f(3, "IPBlock", "An IP range; when set, the two selectors must be left empty.", {
        pointer: true,
      }),
    },
  ),
  NetworkPolicyPort: t("A port, or range of ports, and protocol that traffic must use.", {
    protocol: f(1, "string", "The protocol to match: TCP (the default), UDP or SCTP.", {
      enum: PROTOCOLS,
      pointer: true,
    }),
    port: f(2, "intOrString", "A port number or a named pod port; when absent, every port matches.", {
      pointer: true,
    }),
    endPort: f(
      3,
      "int32",
      "Last port of an inclusive range starting at port; needs a numeric port and must not be below it.",
      { pointer: true },
    ),
  }),
  NetworkPolicySpec: t("The pods a network policy covers and the traffic it lets in and out.", {
    podSelector: f(
      1,
      "meta/v1.LabelSelector",
      "Pods in this namespace the policy applies to; an empty selector picks them all. Policies selecting the same pod add up.",
      { ...required, omitEmpty: false },
    ),
    ingress: f(
      2,
      "[]NetworkPolicyIngressRule",
      "Incoming traffic allowed to the selected pods, beyond traffic from their own node. An empty list lets no traffic in.",
    ),
    egress: f(
      3,
      "[]NetworkPolicyEgressRule",
      "Outgoing traffic allowed from the selected pods. An empty list lets no traffic out when the policy covers egress.",
    ),
    policyTypes: f(
      4,
      "[]string",
      "Directions the policy governs: Ingress, Egress or both. When unset, Ingress is always included and Egress is added when egress rules are present.",
      { enum: ["Egress", "Ingress"] },
    ),
  }),
  NetworkPolicyStatus: t("Observed state of a network policy.", {
    conditions: f(
      1,
      "[]meta/v1.Condition",
      "Conditions describing the policy's current state, one per type.",
      {
        ...mergeBy("type"),
        ...mapList("type"),
      },
    ),
  }),
  ServiceBackendPort: t("A port of a service, given by name or by number but not both.", {
    name: f(1, "string", "Name of the service port; excludes number."),
    number: f(2, "int32", "Number of the service port, such as 80; excludes name."),
  }),
});
