// admissionregistration/v1: the webhook configurations that send admission requests to external
// validating and mutating webhooks.
import { atomic, f, inline, mapList, mergeBy, pkg, required, t } from "./model.ts";

const FAILURE_POLICIES = ["Fail", "Ignore"];
const MATCH_POLICIES = ["Equivalent", "Exact"];
const SIDE_EFFECT_CLASSES = ["None", "NoneOnDryRun", "Some", "Unknown"];
const REINVOCATION_POLICIES = ["IfNeeded", "Never"];
const OPERATIONS = ["*", "CONNECT", "CREATE", "DELETE", "UPDATE"];
const SCOPES = ["*", "Cluster", "Namespaced"];

const webhook = {
  name: (n: number) =>
    f(
      n,
      "string",
      'The webhook\'s name, unique within its configuration; a fully qualified name such as "policy.example.com" is recommended.',
      { ...required, omitEmpty: false },
    ),
  clientConfig: (n: number) =>
    f(n, "WebhookClientConfig", "Where and how the API server calls the webhook.", {
      ...required,
      omitEmpty: false,
    }),
  rules: (n: number) =>
    f(
      n,
      "[]RuleWithOperations",
      "The operations and resources the webhook is called for; a request is sent when it matches any one rule. Requests about webhook configuration objects themselves never go to webhooks.",
    ),
  failurePolicy: (n: number) =>
    f(
      n,
      "string",
      'What happens when calling the webhook fails: "Fail" rejects the request, "Ignore" lets it through. Defaults to "Fail".',
      { enum: FAILURE_POLICIES, pointer: true },
    ),
  matchPolicy: (n: number) =>
    f(
      n,
      "string",
      'How rules match: "Exact" only sends requests made through exactly a listed group and version, while "Equivalent" also sends requests made through another group or version of the same resource, converted to a listed one. Defaults to "Equivalent".',
      { enum: MATCH_POLICIES, pointer: true },
    ),
  namespaceSelector: (n: number) =>
    f(
      n,
      "meta/v1.LabelSelector",
      "Limits the webhook to objects whose namespace has matching labels (for a Namespace object, its own labels). Other cluster-scoped objects are never skipped. Empty matches everything.",
      { pointer: true },
    ),
  objectSelector: (n: number) =>
    f(
      n,
      "meta/v1.LabelSelector",
      "Limits the webhook to objects whose own labels match; the old or the new object matching is enough. Since users control their labels, use it only for opt-in webhooks. Empty matches everything.",
      { pointer: true },
    ),
  sideEffects: (n: number) =>
    f(
      n,
      "string",
      'Whether calling the webhook changes anything outside the request: "None" or "NoneOnDryRun" for new configurations ("Some" and "Unknown" come from older versions). Dry-run requests that match a webhook with side effects are rejected.',
      { ...required, enum: SIDE_EFFECT_CLASSES, pointer: true, omitEmpty: false },
    ),
  timeoutSeconds: (n: number) =>
    f(
      n,
      "int32",
      "How long, in seconds, to wait for the webhook before applying the failure policy; 1 to 30, default 10.",
      { pointer: true },
    ),
  admissionReviewVersions: (n: number) =>
    f(
      n,
      "[]string",
      "The AdmissionReview versions the webhook accepts, most preferred first; the API server sends the first one it supports, and the configuration is invalid when it supports none.",
      { ...required, omitEmpty: false },
    ),
  matchConditions: (n: number) =>
    f(
      n,
      "[]MatchCondition",
      "CEL conditions, at most 64, that a request already selected by rules and selectors must also meet: any false skips the webhook; an error with none false rejects the request under failurePolicy Fail and skips the webhook under Ignore. Empty means no extra filtering.",
      { ...mergeBy("name"), ...mapList("name") },
    ),
};

export const ADMISSIONREGISTRATION_V1 = pkg(
  "admissionregistration/v1",
  "k8s.io.api.admissionregistration.v1",
  {
    MatchCondition: t("A named CEL condition a request must satisfy before a webhook is called.", {
      name: f(
        1,
        "string",
        "Identifies the condition within its list (merge key and log label): a qualified name, optionally with a DNS subdomain prefix and a slash.",
        { ...required, omitEmpty: false },
      ),
      expression: f(
        2,
        "string",
        "A CEL expression returning a bool. It can read object, oldObject, request (the admission request's attributes) and authorizer (for authorization checks on the requester).",
        { ...required, omitEmpty: false },
      ),
    }),
    MutatingWebhook: t("One mutating admission webhook and which requests it is called for.", {
      name: webhook.name(1),
      clientConfig: webhook.clientConfig(2),
      rules: webhook.rules(3),
      failurePolicy: webhook.failurePolicy(4),
      matchPolicy: webhook.matchPolicy(9),
      namespaceSelector: webhook.namespaceSelector(5),
      objectSelector: webhook.objectSelector(11),
      sideEffects: webhook.sideEffects(6),
      timeoutSeconds: webhook.timeoutSeconds(7),
      admissionReviewVersions: webhook.admissionReviewVersions(8),
      reinvocationPolicy: f(
        10,
        "string",
        'Whether the webhook may run again in one admission pass: "Never" calls it once; "IfNeeded" calls it again (not necessarily only once more) when later admission plugins change the object, so the webhook must be idempotent. Defaults to "Never".',
        { enum: REINVOCATION_POLICIES, pointer: true },
      ),
      matchConditions: webhook.matchConditions(12),
    }),
    MutatingWebhookConfiguration: t(
      "A set of mutating admission webhooks, which may change objects as they are admitted.",
      {
        metadata: f(1, "meta/v1.ObjectMeta", "The object's metadata: name, labels, annotations and so on."),
        webhooks: f(2, "[]MutatingWebhook", "The webhooks and the requests each is called for.", {
          ...mergeBy("name"),
          protoName: "Webhooks",
        }),
      },
    ),
    Rule: t("Which API groups, versions and resources a rule covers; every combination should be valid.", {
      apiGroups: f(1, "[]string", 'API groups of the resources; "*" (alone) means every group.', atomic),
      apiVersions: f(
        2,
        "[]string",
        'API versions of the resources; "*" (alone) means every version.',
        atomic,
      ),
      resources: f(
        3,
        "[]string",
        'Resources covered: "pods" for a resource, "pods/log" for a subresource, "*" for all resources without subresources, "pods/*" for every subresource of pods, "*/scale" for every scale subresource and "*/*" for everything. Wildcard entries must not overlap.',
        atomic,
      ),
      scope: f(
        4,
        "string",
        'Which objects the rule covers: "Cluster" for cluster-scoped ones (Namespaces included), "Namespaced" for namespaced ones, "*" for both. Subresources follow their parent. Defaults to "*".',
        { enum: SCOPES, pointer: true },
      ),
    }),
    RuleWithOperations: t(
      "A rule together with the operations it covers; every combination should be valid.",
      {
        operations: f(
          1,
          "[]string",
          'The operations covered: CREATE, UPDATE, DELETE, CONNECT, or "*" (alone) for all of them and any added later.',
          { ...atomic, enum: OPERATIONS },
        ),
        rule: f(2, "Rule", "The groups, versions, resources and scope covered, written inline.", inline),
      },
    ),
    ServiceReference: t("A Service in the cluster that serves a webhook.", {
      namespace: f(1, "string", "Namespace of the Service.", { ...required, omitEmpty: false }),
      name: f(2, "string", "Name of the Service.", { ...required, omitEmpty: false }),
      path: f(3, "string", "URL path sent with every request to the Service, if any.", { pointer: true }),
      port: f(4, "int32", "Port of the Service that serves the webhook, 1 to 65535; defaults to 443.", {
        pointer: true,
      }),
    }),
    ValidatingWebhook: t("One validating admission webhook and which requests it is called for.", {
      name: webhook.name(1),
      clientConfig: webhook.clientConfig(2),
      rules: webhook.rules(3),
      failurePolicy: webhook.failurePolicy(4),
      matchPolicy: webhook.matchPolicy(9),
      namespaceSelector: webhook.namespaceSelector(5),
      objectSelector: webhook.objectSelector(10),
      sideEffects: webhook.sideEffects(6),
      timeoutSeconds: webhook.timeoutSeconds(7),
      admissionReviewVersions: webhook.admissionReviewVersions(8),
      matchConditions: webhook.matchConditions(11),
    }),
    ValidatingWebhookConfiguration: t(
      "A set of validating admission webhooks, which accept or reject objects without changing them.",
      {
        metadata: f(1, "meta/v1.ObjectMeta", "The object's metadata: name, labels, annotations and so on."),
        webhooks: f(2, "[]ValidatingWebhook", "The webhooks and the requests each is called for.", {
          ...mergeBy("name"),
          protoName: "Webhooks",
        }),
      },
    ),
    WebhookClientConfig: t(
      "How to reach a webhook over TLS: by URL or through a Service, plus the CA to trust.",
      {
        url: f(
          3,
          "string",
          "The webhook's https URL (scheme://host:port/path) for webhooks outside the cluster; exactly one of url and service is set. No user info, query or fragment is allowed, and the host should not be a cluster Service or localhost unless every API server can reach it.",
          { pointer: true },
        ),
        service: f(
          1,
          "ServiceReference",
          "The Service that serves the webhook, for webhooks running in the cluster.",
          { pointer: true },
        ),
        caBundle: f(
          2,
          "bytes",
          "PEM-encoded CA certificates used to verify the webhook's serving certificate; the API server's system roots are used when empty.",
        ),
      },
    ),
  },
);
