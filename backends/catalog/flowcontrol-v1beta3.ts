// flowcontrol/v1beta3: API priority and fairness. FlowSchemas sort incoming requests into flows
// and priority levels; PriorityLevelConfigurations say how much concurrency each level gets and
// what happens to requests beyond it.
import { atomic, f, mapList, mergeBy, pkg, required, set, t } from "./model.ts";

const DISTINGUISHER_METHODS = ["ByNamespace", "ByUser"];
const LIMIT_RESPONSE_TYPES = ["Queue", "Reject"];
const PRIORITY_LEVEL_TYPES = ["Exempt", "Limited"];
const SUBJECT_KINDS = ["Group", "ServiceAccount", "User"];

export const FLOWCONTROL_V1BETA3 = pkg("flowcontrol/v1beta3", "k8s.io.api.flowcontrol.v1beta3", {
  FlowDistinguisherMethod: t("How requests of a flow schema are split into flows.", {
    type: f(
      1,
      "string",
      'What identifies a flow: "ByUser" (the requesting user) or "ByNamespace" (the namespace of the object acted on).',
      { ...required, enum: DISTINGUISHER_METHODS, omitEmpty: false },
    ),
  }),
  FlowSchema: t(
    "Classifies incoming requests: those it matches go to its priority level, split into flows identified by the schema's name and a distinguisher.",
    {
      metadata: f(1, "meta/v1.ObjectMeta", "The object's metadata: name, labels, annotations and so on."),
      spec: f(2, "FlowSchemaSpec", "Which requests the schema matches and where it sends them."),
      status: f(3, "FlowSchemaStatus", "The schema's observed state."),
    },
  ),
  FlowSchemaCondition: t("One observed state of a flow schema.", {
    type: f(1, "string", "The kind of condition."),
    status: f(2, "string", 'Whether the condition holds: "True", "False" or "Unknown".'),
    lastTransitionTime: f(3, "time", "When the condition last changed status."),
    reason: f(4, "string", "A one-word CamelCase reason for the last change."),
    message: f(5, "string", "Details about the last change, for people to read."),
  }),
  FlowSchemaSpec: t("What a flow schema matches and how it classifies the requests.", {
    priorityLevelConfiguration: f(
      1,
      "PriorityLevelConfigurationReference",
      "The priority level that matching requests go to; when it does not exist, the schema is ignored and its status says so.",
      { ...required, omitEmpty: false },
    ),
    matchingPrecedence: f(
      2,
      "int32",
      "Orders the schemas that match a request: the lowest number wins. Between 1 and 10000; defaults to 1000.",
      { omitEmpty: false },
    ),
    distinguisherMethod: f(
      3,
      "FlowDistinguisherMethod",
      "How matching requests are split into flows; when unset, all of them share one flow.",
      { pointer: true },
    ),
    rules: f(
      4,
      "[]PolicyRulesWithSubjects",
      "The schema matches a request when at least one of these does; an empty list matches nothing.",
      atomic,
    ),
  }),
  FlowSchemaStatus: t("The observed state of a flow schema.", {
    conditions: f(1, "[]FlowSchemaCondition", "The schema's current conditions, keyed by type.", {
      ...mapList("type"),
      ...mergeBy("type"),
    }),
  }),
  GroupSubject: t("Matches requests by a group of the requesting user.", {
    name: f(1, "string", 'The group to match, or "*" for every group.', { ...required, omitEmpty: false }),
  }),
  LimitResponse: t("What a priority level does with requests it cannot run right away.", {
    type: f(
      1,
      "string",
      '"Queue" holds such requests in queues until they can run or a queue limit is hit; "Reject" turns them away at once.',
      { ...required, enum: LIMIT_RESPONSE_TYPES, omitEmpty: false },
    ),
    queuing: f(2, "QueuingConfiguration", 'The queue settings; only allowed when type is "Queue".', {
      pointer: true,
    }),
  }),
  LimitedPriorityLevelConfiguration: t(
    "The limits of a Limited priority level: how many requests may run at once and what happens to the rest.",
    {
      nominalConcurrencyShares: f(
        1,
        "int32",
        "This level's share of the server's concurrency limit, which is divided among Limited levels in proportion to their shares (rounded up) to give each its nominal limit in seats. The seats serve this level's requests and those other levels borrow. Defaults to 30.",
        { omitEmpty: false },
      ),
      limitResponse: f(2, "LimitResponse", "What to do with requests that cannot run right away."),
      lendablePercent: f(
        3,
        "int32",
        "The percentage (0 to 100, default 0) of this level's nominal limit that other levels may borrow, rounded to whole seats.",
        { pointer: true },
      ),
      borrowingLimitPercent: f(
        4,
        "int32",
        "The most this level may borrow from other levels, as a percentage of its own nominal limit (rounded to whole seats, and may exceed 100). Unset means no limit.",
        { pointer: true },
      ),
    },
  ),
  NonResourcePolicyRule: t(
    "Matches non-resource requests by verb and URL path; both a verb and a URL must match.",
    {
      verbs: f(1, "[]string", 'Verbs to match, not empty; "*" (alone) matches every verb.', {
        ...set,
        ...required,
        omitEmpty: false,
      }),
      nonResourceURLs: f(
        6,
        "[]string",
        'URL paths to match, not empty. An entry is an exact path or a prefix ending in "/*" ("/healthz/*" matches every per-component health check); "*" (alone) matches every path.',
        { ...set, ...required, omitEmpty: false },
      ),
    },
  ),
  PolicyRulesWithSubjects: t(
    "Matches a request when one of its subjects matches the requester and one of its resource or non-resource rules matches the request.",
    {
      subjects: f(
        1,
        "[]Subject",
        "The users, groups and service accounts covered; at least one. Listing both the authenticated and the unauthenticated system groups covers everyone.",
        { ...atomic, ...required, omitEmpty: false },
      ),
      resourceRules: f(
        2,
        "[]ResourcePolicyRule",
        "Rules on verb and resource; this list and nonResourceRules cannot both be empty.",
        atomic,
      ),
      nonResourceRules: f(3, "[]NonResourcePolicyRule", "Rules on verb and non-resource URL path.", atomic),
    },
  ),
  PriorityLevelConfiguration: t("A priority level: how requests sent to it are limited and queued.", {
    metadata: f(1, "meta/v1.ObjectMeta", "The object's metadata: name, labels, annotations and so on."),
    spec: f(2, "PriorityLevelConfigurationSpec", "Whether the level is limited, and how."),
    status: f(3, "PriorityLevelConfigurationStatus", "The level's observed state."),
  }),
  PriorityLevelConfigurationCondition: t("One observed state of a priority level.", {
    type: f(1, "string", "The kind of condition."),
    status: f(2, "string", 'Whether the condition holds: "True", "False" or "Unknown".'),
    lastTransitionTime: f(3, "time", "When the condition last changed status."),
    reason: f(4, "string", "A one-word CamelCase reason for the last change."),
    message: f(5, "string", "Details about the last change, for people to read."),
  }),
  PriorityLevelConfigurationReference: t("Names the priority level a flow schema sends requests to.", {
    name: f(1, "string", "Name of the PriorityLevelConfiguration.", { ...required, omitEmpty: false }),
  }),
  PriorityLevelConfigurationSpec: t("Whether a priority level limits its requests, and the limits.", {
    type: f(
      1,
      "string",
      '"Exempt" requests are never limited or queued and take nothing from other levels; "Limited" requests are subject to limits and get a share of the server\'s capacity of their own.',
      { ...required, enum: PRIORITY_LEVEL_TYPES, omitEmpty: false },
    ),
    limited: f(
      2,
      "LimitedPriorityLevelConfiguration",
      'The limits of a Limited level; set exactly when type is "Limited".',
      { pointer: true },
    ),
  }),
  PriorityLevelConfigurationStatus: t("The observed state of a priority level.", {
    conditions: f(
      1,
      "[]PriorityLevelConfigurationCondition",
      "The level's current conditions, keyed by type.",
      {
        ...mapList("type"),
        ...mergeBy("type"),
      },
    ),
  }),
  QueuingConfiguration: t("The queues of a priority level that queues excess requests.", {
    queues: f(
      1,
      "int32",
      "How many queues the level has on each API server; positive, default 64. With 1, shuffle sharding and so the distinguisher method have no effect.",
      { omitEmpty: false },
    ),
    handSize: f(
      2,
      "int32",
      "How many queues shuffle sharding deals to each flow, by hashing its identifier; a request joins the shortest of them. At most queues, and best kept much smaller so heavy flows cannot fill most queues. Default 8.",
      { omitEmpty: false },
    ),
    queueLengthLimit: f(
      3,
      "int32",
      "The most requests that may wait in one queue at a time; more are rejected. Positive, default 50.",
      { omitEmpty: false },
    ),
  }),
  ResourcePolicyRule: t(
    "Matches resource requests by verb, API group, resource and namespace; each must match, and a request without a namespace matches only when clusterScope is true.",
    {
      verbs: f(1, "[]string", 'Verbs to match, not empty; "*" (alone) matches every verb.', {
        ...set,
        ...required,
        omitEmpty: false,
      }),
      apiGroups: f(2, "[]string", 'API groups to match, not empty; "*" (alone) matches every group.', {
        ...set,
        ...required,
        omitEmpty: false,
      }),
      resources: f(
        3,
        "[]string",
        'Resources to match, lowercase plural and optionally with a subresource (such as "nodes/status"), not empty; "*" (alone) matches every resource.',
        { ...required, ...set, omitEmpty: false },
      ),
      clusterScope: f(
        4,
        "bool",
        "Whether requests without a namespace (cluster-scoped resources, or all namespaces at once) match. When false or unset, namespaces must not be empty.",
      ),
      namespaces: f(
        5,
        "[]string",
        'Namespaces a namespaced request must target to match; "*" matches any namespace but not requests without one. May be empty only when clusterScope is true.',
        { ...set, omitEmpty: false },
      ),
    },
  ),
  ServiceAccountSubject: t("Matches requests made by service accounts.", {
    namespace: f(1, "string", "Namespace of the service accounts.", { ...required, omitEmpty: false }),
    name: f(2, "string", 'Name of the service account, or "*" for every one in the namespace.', {
      ...required,
      omitEmpty: false,
    }),
  }),
  Subject: t("Matches who made a request: a user, a group or a service account.", {
    kind: f(1, "string", "Which of user, group and serviceAccount is set.", {
      ...required,
      enum: SUBJECT_KINDS,
      omitEmpty: false,
    }),
    user: f(2, "UserSubject", "Match by user name.", { pointer: true }),
    group: f(3, "GroupSubject", "Match by group.", { pointer: true }),
    serviceAccount: f(4, "ServiceAccountSubject", "Match by service account.", { pointer: true }),
  }),
  UserSubject: t("Matches requests by the requesting user's name.", {
    name: f(1, "string", 'The user name to match, or "*" for every user.', { ...required, omitEmpty: false }),
  }),
});
