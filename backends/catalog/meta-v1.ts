// meta/v1: the metadata every object and list carries, label selectors, owner references, managed
// fields, conditions, and the Status and DeleteOptions messages of the API itself. Time values,
// durations and field sets are catalog scalars (`time`, `microTime`, `duration`, `fieldsV1`).
import { f, mergeBy, pkg, required, t } from "./model.ts";

const STRUCT_ATOMIC = { structType: "atomic" } as const;

export const META_V1 = pkg("meta/v1", "k8s.io.apimachinery.pkg.apis.meta.v1", {
  ObjectMeta: t("Metadata every stored object has, including the objects users create.", {
    name: f(
      1,
      "string",
      "Name of the object, unique within its namespace (or the cluster, for cluster-wide kinds). Needed on create unless generateName is given. Cannot be changed.",
    ),
    generateName: f(
      2,
      "string",
      "Prefix from which the server builds a unique name, used only when name is empty; the prefix may be shortened to fit the random suffix. A clash with an existing name yields 409 Conflict.",
    ),
    namespace: f(
      3,
      "string",
      'Namespace the object lives in, a DNS label; empty for cluster-wide kinds, and empty means "default" for namespaced ones. Cannot be changed.',
    ),
    selfLink: f(4, "string", "Deprecated and no longer filled in by the server."),
    uid: f(
      5,
      "string",
      "Identifier unique across time and space, assigned by the server on create and never changed. Read-only.",
    ),
    resourceVersion: f(
      6,
      "string",
      "Opaque version of the object, changed on every write; used for optimistic concurrency, change detection and watches. Pass it back unmodified. Read-only.",
    ),
    generation: f(
      7,
      "int64",
      "Counter of changes to the desired state, maintained by the server. Read-only.",
    ),
    creationTimestamp: f(
      8,
      "time",
      "When the server created the object, in UTC (RFC 3339); not strictly ordered across operations. Read-only; null for lists.",
    ),
    deletionTimestamp: f(
      9,
      "time",
      "When the object is due to be removed, set by the server once graceful deletion is requested; removal waits until finalizers is empty. It may only move earlier. Read-only.",
      { pointer: true },
    ),
    deletionGracePeriodSeconds: f(
      10,
      "int64",
      "Seconds the object is given to terminate gracefully, set together with deletionTimestamp; may only be reduced. Read-only.",
      { pointer: true },
    ),
    labels: f(
      11,
      "{}string",
      "Key/value pairs for organizing and selecting objects, e.g. by services and controllers.",
    ),
    annotations: f(
      12,
      "{}string",
      "Arbitrary key/value data kept with the object for tools to use; not usable in queries.",
    ),
    ownerReferences: f(
      13,
      "[]OwnerReference",
      "Objects this one depends on; once all of them are gone, it is garbage collected. At most one may be marked as the managing controller.",
      mergeBy("uid"),
    ),
    finalizers: f(
      14,
      "[]string",
      "Tokens, one per responsible component, that all have to be removed before the object is deleted; while deletionTimestamp is set, entries may only be removed. They may be processed in any order.",
      { patchStrategy: "merge" },
    ),
    managedFields: f(
      17,
      "[]ManagedFieldsEntry",
      "Which manager owns which fields, for server-side apply; internal bookkeeping that users seldom need to touch.",
    ),
  }),
  ListMeta: t("Metadata of lists and of other synthetic responses.", {
    selfLink: f(1, "string", "Deprecated and no longer filled in by the server."),
    resourceVersion: f(
      2,
      "string",
      "Opaque version of the collection as served, usable to watch from this point; pass it back unmodified. Read-only.",
    ),
    continue: f(
      3,
      "string",
      "Opaque token, present when a limited list has more items, for fetching the next page; it may expire after a few minutes or when the server configuration changes.",
    ),
    remainingItemCount: f(
      4,
      "int64",
      "Estimated number of items after this page; left out when selectors make it unknown and when the list is complete.",
      { pointer: true },
    ),
  }),
  LabelSelector: t(
    "A query over labels: matchLabels and matchExpressions must all hold. An empty selector matches everything, a null one nothing.",
    {
      matchLabels: f(
        1,
        "{}string",
        'Exact label values to match; each pair is shorthand for an "In" expression with one value.',
      ),
      matchExpressions: f(2, "[]LabelSelectorRequirement", "Label expressions, all of which must hold."),
    },
    STRUCT_ATOMIC,
  ),
  LabelSelectorRequirement: t("One expression relating a label to a set of values.", {
    key: f(1, "string", "The label tested.", { ...required, ...mergeBy("key"), omitEmpty: false }),
    operator: f(
      2,
      "string",
      'How the label relates to the values: "In", "NotIn", "Exists" or "DoesNotExist".',
      { ...required, omitEmpty: false },
    ),
    values: f(
      3,
      "[]string",
      'Values to compare with: required for "In" and "NotIn", empty for "Exists" and "DoesNotExist". Replaced as a whole by strategic merge patches.',
    ),
  }),
  OwnerReference: t(
    "Identifies an object that owns this one. The owner is in the same namespace or is cluster-wide, so no namespace is given.",
    {
      apiVersion: f(5, "string", "API version of the owner.", { ...required, omitEmpty: false }),
      kind: f(1, "string", "Kind of the owner.", { ...required, omitEmpty: false }),
      name: f(3, "string", "Name of the owner.", { ...required, omitEmpty: false }),
      uid: f(4, "string", "UID of the owner.", { ...required, omitEmpty: false }),
      controller: f(6, "bool", "True when the owner is the controller that manages this object.", {
        pointer: true,
      }),
      blockOwnerDeletion: f(
        7,
        "bool",
        "When true and the owner is deleted in the foreground, the owner stays until this reference is gone. Setting it needs permission to delete the owner. Defaults to false.",
        { pointer: true },
      ),
    },
    STRUCT_ATOMIC,
  ),
  ManagedFieldsEntry: t("The fields one manager owns in an object, for one API version of the resource.", {
    manager: f(1, "string", "Name of the manager, the workflow that set the fields."),
    operation: f(2, "string", 'How the fields were set: "Apply" or "Update".'),
    apiVersion: f(
      3,
      "string",
      "API version (group/version) the field set is expressed in; needed because field sets cannot be converted between versions.",
    ),
    time: f(
      4,
      "time",
      "When the entry was added, or last updated because the manager added or changed one of its fields; not updated when fields are only taken over by someone else.",
      { pointer: true },
    ),
    fieldsType: f(6, "string", 'Format of the field set; "FieldsV1" is the only one.'),
    fieldsV1: f(7, "fieldsV1", "The owned fields, in the FieldsV1 format.", { pointer: true }),
    subresource: f(
      8,
      "string",
      'Subresource the update went through, such as "status"; empty for the main resource. It keeps managers of the same name apart; apiVersion always refers to the main resource.',
    ),
  }),
  Condition: t("One observation about an object's current state, for use in status.conditions lists.", {
    type: f(
      1,
      "string",
      "Kind of condition, in CamelCase, optionally prefixed with a domain (example.com/CamelCase); at most 316 characters.",
      { omitEmpty: false },
    ),
    status: f(2, "string", 'Whether the condition holds: "True", "False" or "Unknown".', {
      omitEmpty: false,
    }),
    observedGeneration: f(
      3,
      "int64",
      "The metadata.generation the condition was computed from; older than the current one means the condition is stale.",
    ),
    lastTransitionTime: f(
      4,
      "time",
      "When the status last changed, or failing that when the field itself last changed.",
      { omitEmpty: false },
    ),
    reason: f(
      5,
      "string",
      "Non-empty CamelCase identifier for why the status last changed; the producer defines its values.",
      { omitEmpty: false },
    ),
    message: f(6, "string", "Human-readable detail on the last change; may be empty.", { omitEmpty: false }),
  }),
  Status: t("The result of a call that returns no other object, such as an error or a deletion.", {
    metadata: f(1, "ListMeta", "Standard list metadata."),
    status: f(2, "string", 'Outcome of the call: "Success" or "Failure".'),
    message: f(3, "string", "Readable explanation of the outcome."),
    reason: f(
      4,
      "string",
      "Machine-readable cause of a failure, refining but not replacing the HTTP status code; empty when unknown.",
    ),
    details: f(
      5,
      "StatusDetails",
      "Additional data whose shape depends on the reason; not guaranteed to follow any schema.",
      { pointer: true },
    ),
    code: f(6, "int32", "Suggested HTTP status code; 0 when not set."),
  }),
  StatusDetails: t(
    "Extra information about a call's outcome; which fields are set depends on the reason, and clients should treat every field as possibly empty or malformed.",
    {
      name: f(1, "string", "Name of the resource involved, when there is a single one."),
      group: f(2, "string", "API group of the resource involved."),
      kind: f(3, "string", "Kind of the resource involved; may differ from the kind requested."),
      uid: f(6, "string", "UID of the resource involved, when there is a single one."),
      causes: f(4, "[]StatusCause", "Individual causes of the failure, when the reason provides them."),
      retryAfterSeconds: f(
        5,
        "int32",
        "Seconds to wait before trying again, or before taking the alternative action some errors call for.",
      ),
    },
  ),
  StatusCause: t("One cause of a failed call, one of possibly several.", {
    reason: f(1, "string", "Machine-readable cause; empty when unknown."),
    message: f(2, "string", "Readable explanation, fit to show as is."),
    field: f(
      3,
      "string",
      'The offending field as a JSON path with dots and zero-based indexes, such as "items[0].name"; may occur in several causes.',
    ),
  }),
  Preconditions: t("Conditions an object must meet before an update or delete proceeds.", {
    uid: f(1, "string", "UID the object must have.", { pointer: true }),
    resourceVersion: f(2, "string", "Resource version the object must have.", { pointer: true }),
  }),
  DeleteOptions: t("Options for deleting an object.", {
    gracePeriodSeconds: f(
      1,
      "int64",
      "Seconds to wait before deleting, a non-negative number; 0 deletes at once, and when unset the kind's default applies.",
      { pointer: true },
    ),
    preconditions: f(
      2,
      "Preconditions",
      "Conditions that must hold for the deletion to proceed; otherwise the call fails with 409 Conflict.",
      { pointer: true },
    ),
    orphanDependents: f(
      3,
      "bool",
      "Deprecated, use propagationPolicy: true orphans dependents, false deletes them. Setting both is an error.",
      { pointer: true },
    ),
    propagationPolicy: f(
      4,
      "string",
      'What happens to dependents: "Orphan" leaves them, "Background" deletes them afterwards, "Foreground" deletes them before the object. When unset, the finalizers and the kind\'s default decide. Cannot be combined with orphanDependents.',
      { pointer: true },
    ),
    dryRun: f(
      5,
      "[]string",
      'Run the request without persisting anything; "All" runs every stage. Unknown values are rejected.',
    ),
  }),
});
