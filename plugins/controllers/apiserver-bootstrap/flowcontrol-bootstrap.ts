// The API Priority and Fairness configuration upstream's API server 1.27 creates at start
// (flowcontrol v1beta3): mandatory objects, which it always restores, and suggested ones, which
// operators may change or delete. Names, precedences, shares and queuing are upstream's.
import type { Naming } from "../../../backends/naming/index.ts";

type Json = Record<string, unknown>;

export interface BootstrapConfiguration {
  readonly mandatoryPriorityLevels: readonly Json[];
  readonly mandatoryFlowSchemas: readonly Json[];
  readonly suggestedPriorityLevels: readonly Json[];
  readonly suggestedFlowSchemas: readonly Json[];
}

const ALL = "*";
const MASTERS = "system:masters";
const AUTHENTICATED = "system:authenticated";
const UNAUTHENTICATED = "system:unauthenticated";
const NODES = "system:nodes";
const SERVICE_ACCOUNTS = "system:serviceaccounts";
const CONTROLLER_MANAGER = "system:kube-controller-manager";
const SCHEDULER = "system:kube-scheduler";

/** The annotation that says whether the server keeps an object's spec: `apf.<domain>/autoupdate-spec`. */
export function autoUpdateAnnotation(naming: Naming): string {
  return naming.label("autoupdate-spec", "apf");
}

const groups = (...names: string[]): Json[] => names.map((name) => ({ kind: "Group", group: { name } }));
const users = (...names: string[]): Json[] => names.map((name) => ({ kind: "User", user: { name } }));

function resourceRule(
  verbs: string[],
  apiGroups: string[],
  resources: string[],
  clusterScope: boolean,
): Json {
  return { verbs, apiGroups, resources, ...(clusterScope ? { clusterScope: true } : {}), namespaces: [ALL] };
}

const everyResource = resourceRule([ALL], [ALL], [ALL], true);
const everyPath = { verbs: [ALL], nonResourceURLs: [ALL] };

function limited(shares: number, lendablePercent: number, queuing?: [number, number]): Json {
  return {
    type: "Limited",
    limited: {
      nominalConcurrencyShares: shares,
      lendablePercent,
      limitResponse: queuing
        ? { type: "Queue", queuing: { queues: queuing[0], handSize: queuing[1], queueLengthLimit: 50 } }
        : { type: "Reject" },
    },
  };
}

export function bootstrapConfiguration(naming: Naming): BootstrapConfiguration {
  const apiVersion = `${naming.group("flowcontrol")}/v1beta3`;
  const annotations = { [autoUpdateAnnotation(naming)]: "true" };
  const coordination = naming.group("coordination");
  const systemServiceAccounts = (...names: string[]): Json[] =>
    names.map((name) => ({
      kind: "ServiceAccount",
      serviceAccount: { name, namespace: naming.systemNamespace },
    }));

  const level = (name: string, spec: Json): Json => ({
    apiVersion,
    kind: "PriorityLevelConfiguration",
    metadata: { name, annotations },
    spec,
  });
  const schema = (
    name: string,
    priorityLevel: string,
    matchingPrecedence: number,
    distinguisher: "ByUser" | "ByNamespace" | undefined,
    rule: Json,
  ): Json => ({
    apiVersion,
    kind: "FlowSchema",
    metadata: { name, annotations },
    spec: {
      priorityLevelConfiguration: { name: priorityLevel },
      matchingPrecedence,
      ...(distinguisher ? { distinguisherMethod: { type: distinguisher } } : {}),
      rules: [rule],
    },
  });
  const everything = (subjects: Json[]): Json => ({
    subjects,
    resourceRules: [everyResource],
    nonResourceRules: [everyPath],
  });

  return {
    mandatoryPriorityLevels: [level("catch-all", limited(5, 0)), level("exempt", { type: "Exempt" })],
    mandatoryFlowSchemas: [
      schema("exempt", "exempt", 1, undefined, everything(groups(MASTERS))),
      schema("catch-all", "catch-all", 10000, "ByUser", everything(groups(UNAUTHENTICATED, AUTHENTICATED))),
    ],
    suggestedPriorityLevels: [
      level("system", limited(30, 33, [64, 6])),
      level("node-high", limited(40, 25, [64, 6])),
      level("leader-election", limited(10, 0, [16, 4])),
      level("workload-high", limited(40, 50, [128, 6])),
      level("workload-low", limited(100, 90, [128, 6])),
      level("global-default", limited(20, 50, [128, 6])),
    ],
    suggestedFlowSchemas: [
      schema("system-nodes", "system", 500, "ByUser", everything(groups(NODES))),
      schema("system-node-high", "node-high", 400, "ByUser", {
        subjects: groups(NODES),
        resourceRules: [
          resourceRule([ALL], [""], ["nodes", "nodes/status"], true),
          resourceRule([ALL], [coordination], ["leases"], false),
        ],
      }),
      schema("probes", "exempt", 2, undefined, {
        subjects: groups(UNAUTHENTICATED, AUTHENTICATED),
        nonResourceRules: [{ verbs: ["get"], nonResourceURLs: ["/healthz", "/readyz", "/livez"] }],
      }),
      schema("system-leader-election", "leader-election", 100, "ByUser", {
        subjects: [...users(CONTROLLER_MANAGER, SCHEDULER), ...systemServiceAccounts(ALL)],
        resourceRules: [resourceRule(["get", "create", "update"], [coordination], ["leases"], false)],
      }),
      schema("workload-leader-election", "leader-election", 200, "ByUser", {
        subjects: systemServiceAccounts(ALL),
        resourceRules: [
          resourceRule(["get", "create", "update"], [""], ["endpoints", "configmaps"], false),
          resourceRule(["get", "create", "update"], [coordination], ["leases"], false),
        ],
      }),
      schema("endpoint-controller", "workload-high", 150, "ByUser", {
        subjects: [
          ...users(CONTROLLER_MANAGER),
          ...systemServiceAccounts("endpoint-controller", "endpointslicemirroring-controller"),
        ],
        resourceRules: [resourceRule(["get", "create", "update"], [""], ["endpoints"], false)],
      }),
      schema(
        "kube-controller-manager",
        "workload-high",
        800,
        "ByNamespace",
        everything(users(CONTROLLER_MANAGER)),
      ),
      schema("kube-scheduler", "workload-high", 800, "ByNamespace", everything(users(SCHEDULER))),
      // Named after the system namespace it covers (upstream's kube-system-service-accounts).
      schema(
        `${naming.systemNamespace}-service-accounts`,
        "workload-high",
        900,
        "ByNamespace",
        everything(systemServiceAccounts(ALL)),
      ),
      schema("service-accounts", "workload-low", 9000, "ByUser", everything(groups(SERVICE_ACCOUNTS))),
      schema(
        "global-default",
        "global-default",
        9900,
        "ByUser",
        everything(groups(UNAUTHENTICATED, AUTHENTICATED)),
      ),
    ],
  };
}
