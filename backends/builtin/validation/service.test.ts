import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { naming } from "../../naming/naming.ts";
import { service, shape, variant } from "./fixtures.test-support.ts";
import { kindValidators, prepareServiceForCreate, prepareServiceForUpdate } from "./index.ts";
import type { Json } from "./util.ts";

// biome-ignore lint/suspicious/noExplicitAny: test edits reach deep into plain JSON fixtures.
type Any = any;

const n = naming("cluster");
const validators = kindValidators(n);
const INVALID_IP = "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)";
const SUBDOMAIN_MSG =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

const create = (edit: (o: Any) => void, base: Json = service()) =>
  shape(validators["core/v1.Service"]!.validate!(variant(base, edit)));
const update = (old: Json, edit: (o: Any) => void) =>
  shape(validators["core/v1.Service"]!.validateUpdate!(variant(old, edit), old));

function externalName(): Json {
  return {
    metadata: { name: "db", namespace: "shop" },
    spec: { type: "ExternalName", externalName: "db.example.com.", sessionAffinity: "None" },
  };
}

function loadBalancer(): Json {
  return variant(service(), (o: Any) => {
    o.spec.type = "LoadBalancer";
    o.spec.ports[0].nodePort = 31080;
    o.spec.ports[1].nodePort = 31090;
    o.spec.externalTrafficPolicy = "Cluster";
    o.spec.allocateLoadBalancerNodePorts = true;
    o.spec.loadBalancerSourceRanges = ["10.0.0.0/8", " 192.168.0.0/16"];
  });
}

describe("Service", () => {
  it("accepts realistic services", () => {
    assert.deepEqual(
      create(() => {}),
      [],
    );
    assert.deepEqual(
      create(() => {}, externalName()),
      [],
    );
    assert.deepEqual(
      create(() => {}, loadBalancer()),
      [],
    );
    assert.deepEqual(
      create((o) => {
        o.spec.clusterIP = "None";
        o.spec.clusterIPs = ["None"];
        o.spec.ports = [];
      }),
      [],
    );
  });

  const cases: [string, (o: Any) => void, string[][], Json?][] = [
    ["ports required", (o) => (o.spec.ports = []), [["spec.ports", "Required", ""]]],
    [
      "names required with several ports",
      (o) => (o.spec.ports[1].name = ""),
      [["spec.ports[1].name", "Required", ""]],
    ],
    [
      "duplicate port names and ports",
      (o) => {
        o.spec.ports[1].name = "http";
        o.spec.ports[1].port = 80;
      },
      [
        ["spec.ports[1].name", "Duplicate", ""],
        ["spec.ports[1]", "Duplicate", ""],
      ],
    ],
    [
      "port and targetPort ranges",
      (o) => {
        o.spec.ports[0].port = 0;
        o.spec.ports[0].targetPort = 70000;
      },
      [
        ["spec.ports[0].port", "Invalid", "must be between 1 and 65535, inclusive"],
        ["spec.ports[0].targetPort", "Invalid", "must be between 1 and 65535, inclusive"],
      ],
    ],
    [
      "targetPort name",
      (o) => (o.spec.ports[0].targetPort = "http_port"),
      [
        [
          "spec.ports[0].targetPort",
          "Invalid",
          "must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)",
        ],
      ],
    ],
    [
      "nodePort on ClusterIP",
      (o) => (o.spec.ports[0].nodePort = 30001),
      [["spec.ports[0].nodePort", "Forbidden", "may not be used when `type` is 'ClusterIP'"]],
    ],
    [
      "duplicate nodePorts",
      (o) => (o.spec.ports[1].nodePort = 31080),
      [["spec.ports[1].nodePort", "Duplicate", ""]],
      loadBalancer(),
    ],
    [
      "ExternalName with cluster IPs and a bad name",
      (o) => {
        o.spec.type = "ExternalName";
        o.spec.externalName = "Bad_Name";
      },
      [
        ["spec.clusterIPs", "Forbidden", "may not be set for ExternalName services"],
        ["spec.ipFamilies", "Forbidden", "may not be set for ExternalName services"],
        ["spec.ipFamilyPolicy", "Forbidden", "may not be set for ExternalName services"],
        ["spec.externalName", "Invalid", SUBDOMAIN_MSG],
      ],
    ],
    [
      "ExternalName requires a name",
      (o) => (o.spec.externalName = "."),
      [["spec.externalName", "Required", ""]],
      externalName(),
    ],
    [
      "headless NodePort",
      (o) => {
        o.spec.type = "NodePort";
        o.spec.clusterIP = "None";
        o.spec.clusterIPs = ["None"];
        o.spec.externalTrafficPolicy = "Cluster";
      },
      [["spec.clusterIPs[0]", "Invalid", "may not be set to 'None' for NodePort services"]],
    ],
    [
      "bad cluster IP",
      (o) => {
        o.spec.clusterIP = "10.0.0.999";
        o.spec.clusterIPs = ["10.0.0.999"];
      },
      [["spec.clusterIPs[0]", "Invalid", INVALID_IP]],
    ],
    [
      "clusterIPs disagree with clusterIP",
      (o) => (o.spec.clusterIPs = ["10.96.0.9"]),
      [["spec.clusterIPs", "Invalid", "first value must match `clusterIP`"]],
    ],
    [
      "None is alone",
      (o) => {
        o.spec.clusterIP = "None";
        o.spec.clusterIPs = ["None", "fd00::1"];
      },
      [["spec.clusterIPs", "Invalid", "'None' must be the first and only value"]],
    ],
    [
      "two IPs of one family",
      (o) => {
        o.spec.clusterIPs = ["10.96.14.7", "10.96.14.8"];
        o.spec.ipFamilyPolicy = "PreferDualStack";
      },
      [["spec.clusterIPs", "Invalid", "may specify no more than one IP for each IP family"]],
    ],
    [
      "single stack with two families",
      (o) => (o.spec.ipFamilies = ["IPv4", "IPv6"]),
      [
        [
          "spec.ipFamilyPolicy",
          "Invalid",
          "must be 'RequireDualStack' or 'PreferDualStack' when multiple IP families are specified",
        ],
      ],
    ],
    [
      "IP of the wrong family",
      (o) => (o.spec.ipFamilies = ["IPv6"]),
      [["spec.clusterIPs[0]", "Invalid", "expected an IPv6 value as indicated by `ipFamilies[0]`"]],
    ],
    [
      "ClientIP without config",
      (o) => (o.spec.sessionAffinity = "ClientIP"),
      [["spec.sessionAffinityConfig", "Required", "when session affinity type is ClientIP"]],
    ],
    [
      "ClientIP timeout range",
      (o) => {
        o.spec.sessionAffinity = "ClientIP";
        o.spec.sessionAffinityConfig = { clientIP: { timeoutSeconds: 90000 } };
      },
      [
        [
          "spec.sessionAffinityConfig.clientIP.timeoutSeconds",
          "Invalid",
          "must be greater than 0 and less than 86400",
        ],
      ],
    ],
    [
      "affinity config without ClientIP",
      (o) => (o.spec.sessionAffinityConfig = { clientIP: { timeoutSeconds: 10 } }),
      [["spec.sessionAffinityConfig", "Forbidden", "must not be set when session affinity is None"]],
    ],
    [
      "external IPs",
      (o) => (o.spec.externalIPs = ["127.0.0.1", "x", "169.254.1.1"]),
      [
        ["spec.externalIPs[0]", "Invalid", "may not be in the loopback range (127.0.0.0/8, ::1/128)"],
        ["spec.externalIPs[1]", "Invalid", INVALID_IP],
        ["spec.externalIPs[2]", "Invalid", "may not be in the link-local range (169.254.0.0/16, fe80::/10)"],
      ],
    ],
    [
      "source ranges need a load balancer",
      (o) => (o.spec.loadBalancerSourceRanges = ["10.0.0.0/8"]),
      [["spec.LoadBalancerSourceRanges", "Forbidden", "may only be used when `type` is 'LoadBalancer'"]],
    ],
    [
      "bad source range",
      (o) => (o.spec.loadBalancerSourceRanges = ["10.0.0.0/33"]),
      [
        [
          "spec.LoadBalancerSourceRanges",
          "Invalid",
          "must be a list of IP ranges. For example, 10.240.0.0/24,10.250.0.0/24 ",
        ],
      ],
      loadBalancer(),
    ],
    [
      "load balancer class on ClusterIP",
      (o) => (o.spec.loadBalancerClass = "example.com/lb"),
      [["spec.loadBalancerClass", "Forbidden", "may only be used when `type` is 'LoadBalancer'"]],
    ],
    [
      "traffic policy on ClusterIP",
      (o) => (o.spec.externalTrafficPolicy = "Local"),
      [
        [
          "spec.externalTrafficPolicy",
          "Invalid",
          "ExternalTrafficPolicy can only be set on NodePort and LoadBalancer service",
        ],
      ],
    ],
    [
      "appProtocol",
      (o) => (o.spec.ports[1].appProtocol = "a/b/c"),
      [
        [
          "spec.ports[1].appProtocol",
          "Invalid",
          "a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
        ],
      ],
    ],
  ];
  for (const [name, edit, want, base] of cases) {
    it(`refuses: ${name}`, () => assert.deepEqual(create(edit, base), want));
  }

  it("reads the singular clusterIP when the plural is missing", () => {
    assert.deepEqual(
      create((o) => delete o.spec.clusterIPs),
      [],
    );
  });

  it("keeps cluster IPs on update, except to and from ExternalName", () => {
    const old = service();
    assert.deepEqual(
      update(old, (o) => {
        o.spec.clusterIP = "10.96.14.8";
        o.spec.clusterIPs = ["10.96.14.8"];
      }),
      [["spec.clusterIPs[0]", "Invalid", "may not change once set"]],
    );
    assert.deepEqual(
      update(old, (o) => (o.spec.ipFamilies = ["IPv6"])),
      [
        ["spec.ipFamilies[0]", "Invalid", "may not change once set"],
        ["spec.clusterIPs[0]", "Invalid", "expected an IPv6 value as indicated by `ipFamilies[0]`"],
      ],
    );
    assert.deepEqual(
      update(old, (o) => {
        o.spec = (externalName() as Any).spec;
      }),
      [],
    );
  });

  it("keeps the load balancer class on update", () => {
    const old = variant(loadBalancer(), (o: Any) => (o.spec.loadBalancerClass = "example.com/a"));
    assert.deepEqual(
      update(old, (o) => (o.spec.loadBalancerClass = "example.com/b")),
      [["spec.loadBalancerClass", "Invalid", "may not change once set"]],
    );
  });

  it("prepares cluster IPs and node ports as upstream's strategy does", () => {
    const fresh: Any = variant(service(), (o: Any) => delete o.spec.clusterIPs);
    prepareServiceForCreate(fresh);
    assert.deepEqual(fresh.spec.clusterIPs, ["10.96.14.7"]);
    const old = loadBalancer();
    const applied: Any = variant(old, (o: Any) => {
      delete o.spec.clusterIP;
      delete o.spec.clusterIPs;
      delete o.spec.ports[0].nodePort;
    });
    prepareServiceForUpdate(applied, old);
    assert.equal(applied.spec.clusterIP, "10.96.14.7");
    assert.deepEqual(applied.spec.clusterIPs, ["10.96.14.7"]);
    assert.equal(applied.spec.ports[0].nodePort, 31080);
    assert.deepEqual(shape(validators["core/v1.Service"]!.validateUpdate!(applied, old)), []);
  });

  const changeType = (old: Json, edit: (o: Any) => void): Any => {
    const next: Any = variant(old, edit);
    prepareServiceForUpdate(next, old);
    return next;
  };
  const validUpdate = (next: Json, old: Json) =>
    shape(validators["core/v1.Service"]!.validateUpdate!(next, old));

  it("drops what only the old type uses when a type change leaves it as it was", () => {
    const old: Any = variant(loadBalancer(), (o: Any) => {
      o.spec.externalTrafficPolicy = "Local";
      o.spec.healthCheckNodePort = 31100;
      o.spec.loadBalancerClass = "example.com/lb";
      o.status = { loadBalancer: { ingress: [{ ip: "192.0.2.1" }] } };
    });
    const toNodePort = changeType(old, (o) => {
      o.spec.type = "NodePort";
      delete o.spec.loadBalancerSourceRanges;
    });
    for (const gone of ["healthCheckNodePort", "allocateLoadBalancerNodePorts", "loadBalancerClass"])
      assert.equal(toNodePort.spec[gone], undefined, gone);
    assert.deepEqual(
      toNodePort.spec.ports.map((p: Any) => p.nodePort),
      [31080, 31090],
    );
    assert.equal(toNodePort.spec.externalTrafficPolicy, "Local");
    assert.deepEqual(toNodePort.status.loadBalancer, {});
    assert.deepEqual(validUpdate(toNodePort, old), []);

    const toClusterIP = changeType(old, (o) => {
      o.spec.type = "ClusterIP";
      delete o.spec.loadBalancerSourceRanges;
      o.spec.ports.pop();
    });
    assert.deepEqual(
      toClusterIP.spec.ports.map((p: Any) => p.nodePort),
      [undefined],
    );
    for (const gone of ["externalTrafficPolicy", "healthCheckNodePort", "allocateLoadBalancerNodePorts"])
      assert.equal(toClusterIP.spec[gone], undefined, gone);
    assert.equal(toClusterIP.spec.clusterIP, "10.96.14.7");
    assert.deepEqual(validUpdate(toClusterIP, old), []);

    const toExternal = changeType(service(), (o) => {
      o.spec.type = "ExternalName";
      o.spec.externalName = "db.example.com";
    });
    for (const gone of ["clusterIP", "clusterIPs", "ipFamilies", "ipFamilyPolicy"])
      assert.equal(toExternal.spec[gone], undefined, gone);
    assert.deepEqual(validUpdate(toExternal, service()), []);
  });

  it("keeps what a type change sets anew, for validation to judge", () => {
    const old = loadBalancer();
    const next = changeType(old, (o) => {
      o.spec.type = "ClusterIP";
      delete o.spec.loadBalancerSourceRanges;
      o.spec.ports[0].nodePort = 31555;
      o.spec.allocateLoadBalancerNodePorts = false;
    });
    assert.equal(next.spec.ports[0].nodePort, 31555);
    assert.deepEqual(validUpdate(next, old), [
      ["spec.ports[0].nodePort", "Forbidden", "may not be used when `type` is 'ClusterIP'"],
      ["spec.ports[1].nodePort", "Forbidden", "may not be used when `type` is 'ClusterIP'"],
      ["spec.allocateLoadBalancerNodePorts", "Forbidden", "may only be used when `type` is 'LoadBalancer'"],
    ]);
  });

  it("keeps a Local load balancer's health check node port, which may not change", () => {
    const old = variant(loadBalancer(), (o: Any) => {
      o.spec.externalTrafficPolicy = "Local";
      o.spec.healthCheckNodePort = 31100;
    });
    const kept = changeType(old, (o) => delete o.spec.healthCheckNodePort);
    assert.equal(kept.spec.healthCheckNodePort, 31100);
    assert.deepEqual(
      update(old, (o) => (o.spec.healthCheckNodePort = 31101)),
      [["spec.healthCheckNodePort", "Forbidden", "field is immutable"]],
    );
  });
});

describe("Endpoints", () => {
  const endpoints = (): Json => ({
    metadata: { name: "web", namespace: "shop" },
    subsets: [
      {
        addresses: [{ ip: "10.244.1.5", nodeName: "node-1", targetRef: { kind: "Pod", name: "web-0" } }],
        notReadyAddresses: [{ ip: "fd00::5", hostname: "web-1" }],
        ports: [
          { name: "http", port: 8080, protocol: "TCP" },
          { name: "metrics", port: 9090, protocol: "TCP" },
        ],
      },
    ],
  });
  const check = (edit: (o: Any) => void) =>
    shape(validators["core/v1.Endpoints"]!.validate!(variant(endpoints(), edit)));

  it("accepts realistic endpoints", () =>
    assert.deepEqual(
      check(() => {}),
      [],
    ));
  it("refuses bad addresses and ports", () => {
    assert.deepEqual(
      check((o) => (o.subsets[0].addresses[0].ip = "10.1.2")),
      [
        ["subsets[0].addresses[0].ip", "Invalid", INVALID_IP],
        ["subsets[0].addresses[0].ip", "Invalid", "must be a valid IP address"],
      ],
    );
    assert.deepEqual(
      check((o) => (o.subsets[0].addresses[0].ip = "0.0.0.0")),
      [["subsets[0].addresses[0].ip", "Invalid", "may not be unspecified (0.0.0.0)"]],
    );
    assert.deepEqual(
      check((o) => (o.subsets[0].notReadyAddresses[0].ip = "ff02::1")),
      [
        [
          "subsets[0].notReadyAddresses[0].ip",
          "Invalid",
          "may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)",
        ],
      ],
    );
    assert.deepEqual(
      check((o) => {
        o.subsets[0].addresses = [];
        o.subsets[0].notReadyAddresses = [];
      }),
      [["subsets[0]", "Required", "must specify `addresses` or `notReadyAddresses`"]],
    );
    assert.deepEqual(
      check((o) => (o.subsets[0].ports[1].name = "")),
      [["subsets[0].ports[1].name", "Required", ""]],
    );
    assert.deepEqual(
      check((o) => (o.subsets[0].ports[0].port = 0)),
      [["subsets[0].ports[0].port", "Invalid", "must be between 1 and 65535, inclusive"]],
    );
  });
});
