// discovery/v1: EndpointSlice, the scalable record of the network endpoints behind a service.
import { atomic, f, pkg, required, set, t } from "./model.ts";

export const DISCOVERY_V1 = pkg("discovery/v1", "k8s.io.api.discovery.v1", {
  Endpoint: t("One backend of a service: its addresses, readiness and where it runs.", {
    addresses: f(
      1,
      "[]string",
      "Between 1 and 100 interchangeable addresses of the backend, of the kind the slice's addressType names; clients may use just the first.",
      { ...set, ...required, omitEmpty: false },
    ),
    conditions: f(2, "EndpointConditions", "Readiness, serving and terminating state of the backend."),
    hostname: f(
      3,
      "string",
      "A lowercase DNS label naming the backend, for example in DNS records; backends sharing one are treated as interchangeable.",
      { pointer: true },
    ),
    targetRef: f(4, "core/v1.ObjectReference", "The object, usually a pod, that this backend stands for.", {
      pointer: true,
    }),
    deprecatedTopology: f(
      5,
      "{}string",
      "Topology labels kept from the beta API; writes through this version are ignored. Use zone and nodeName instead.",
    ),
    nodeName: f(6, "string", "Name of the node the backend runs on.", { pointer: true }),
    zone: f(7, "string", "Name of the zone the backend runs in.", { pointer: true }),
    hints: f(8, "EndpointHints", "Suggestions for how consumers should pick this backend.", {
      pointer: true,
    }),
  }),
  EndpointConditions: t("The current state of one backend.", {
    ready: f(
      1,
      "bool",
      "Whether the backend should receive traffic. Unset means unknown, which is usually treated as ready; normally false while terminating.",
      { pointer: true },
    ),
    serving: f(
      2,
      "bool",
      "Like ready, but reported even while the backend is terminating. Unset means consumers should look at ready.",
      { pointer: true },
    ),
    terminating: f(3, "bool", "Whether the backend is shutting down. Unset means it is taken not to be.", {
      pointer: true,
    }),
  }),
  EndpointHints: t("Suggestions about which consumers should use a backend.", {
    forZones: f(
      1,
      "[]ForZone",
      "Zones whose clients should use this backend, for topology-aware routing.",
      atomic,
    ),
  }),
  EndpointPort: t(
    "A network port offered by every backend of an EndpointSlice.",
    {
      name: f(
        1,
        "string",
        "Name of the port, unique within the slice; empty or a DNS label of at most 63 characters. Mirrors the service port's name.",
        { pointer: true },
      ),
      protocol: f(2, "string", "IP protocol of the port: TCP (the default), UDP or SCTP.", {
        enum: ["SCTP", "TCP", "UDP"],
        pointer: true,
      }),
      port: f(
        3,
        "int32",
        "The port number; when unset, the ports are unrestricted and up to the consumer to interpret.",
        { pointer: true },
      ),
      appProtocol: f(
        4,
        "string",
        "The application protocol spoken on the port, as a hint: an IANA service name or a domain-prefixed protocol name.",
        { pointer: true },
      ),
    },
    { structType: "atomic" },
  ),
  EndpointSlice: t(
    "A portion of the backends of a service; the slices chosen by label together make up the full set.",
    {
      metadata: f(1, "meta/v1.ObjectMeta", "The object's metadata: name, namespace, labels and so on."),
      addressType: f(
        4,
        "string",
        "Kind of every address in the slice: IPv4, IPv6 or FQDN (a fully qualified domain name). Cannot be changed once created.",
        { required: true, enum: ["FQDN", "IPv4", "IPv6"], omitEmpty: false },
      ),
      endpoints: f(2, "[]Endpoint", "The distinct backends in this slice, at most 1000.", {
        ...atomic,
        ...required,
        omitEmpty: false,
      }),
      ports: f(
        3,
        "[]EndpointPort",
        "Ports every backend offers, at most 100, each with a distinct name. Empty means no ports are defined; a port with no number means all ports.",
        { ...atomic, omitEmpty: false },
      ),
    },
  ),
  ForZone: t("A zone that should use a backend.", {
    name: f(1, "string", "Name of the zone.", { ...required, omitEmpty: false }),
  }),
});
