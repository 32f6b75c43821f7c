// admissionregistration/v1alpha1: ValidatingAdmissionPolicy and its bindings, which validate
// requests in the API server with CEL expressions instead of calling a webhook.
import { atomic, f, inline, mapList, mergeBy, pkg, required, set, t } from "./model.ts";

const FAILURE_POLICIES = ["Fail", "Ignore"];
const MATCH_POLICIES = ["Equivalent", "Exact"];
const VALIDATION_ACTIONS = ["Audit", "Deny", "Warn"];

export const ADMISSIONREGISTRATION_V1ALPHA1 = pkg(
  "admissionregistration/v1alpha1",
  "k8s.io.api.admissionregistration.v1alpha1",
  {
    AuditAnnotation: t("How a policy adds an annotation to the audit event of a request it evaluates.", {
      key: f(
        1,
        "string",
        'The annotation key, unique within the policy: a qualified name of at most 63 bytes. The event records it as "<policy name>/<key>", and when a webhook writes the same key only the first value is kept.',
        { ...required, omitEmpty: false },
      ),
      valueExpression: f(
        2,
        "string",
        "A CEL expression (at most 5kb) giving the annotation's value as a string; null or an empty string leaves the annotation out, and results over 10kb are cut. When several bindings match, their distinct values are joined with commas.",
        { ...required, omitEmpty: false },
      ),
    }),
    ExpressionWarning: t("A type-checking problem found in one of a policy's expressions.", {
      fieldRef: f(
        2,
        "string",
        'Path of the field holding the expression, such as "spec.validations[0].expression".',
        { omitEmpty: false },
      ),
      warning: f(
        3,
        "string",
        "The type-check result for people to read: each line names the type checked against and the compiler's error.",
        { omitEmpty: false },
      ),
    }),
    MatchCondition: t("A named CEL condition a request must satisfy before a policy is evaluated.", {
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
    MatchResources: t(
      "Selects the requests a policy or binding applies to; a request matched by both the include and the exclude rules is excluded.",
      {
        namespaceSelector: f(
          1,
          "meta/v1.LabelSelector",
          "Limits the policy to objects whose namespace has matching labels (for a Namespace object, its own labels). Other cluster-scoped objects are never skipped. Empty matches everything.",
          { pointer: true },
        ),
        objectSelector: f(
          2,
          "meta/v1.LabelSelector",
          "Limits the policy to objects whose own labels match; the old or the new object matching is enough. Since users control their labels, use it only for opt-in policies. Empty matches everything.",
          { pointer: true },
        ),
        resourceRules: f(
          3,
          "[]NamedRuleWithOperations",
          "The operations and resources covered; a request matching any one rule is included.",
          atomic,
        ),
        excludeResourceRules: f(
          4,
          "[]NamedRuleWithOperations",
          "Operations and resources left out, even when resourceRules include them.",
          atomic,
        ),
        matchPolicy: f(
          7,
          "string",
          'How rules match: "Exact" only covers requests made through exactly a listed group and version, while "Equivalent" also covers requests made through another group or version of the same resource, converted to a listed one. Defaults to "Equivalent".',
          { enum: MATCH_POLICIES, pointer: true },
        ),
      },
      { structType: "atomic" },
    ),
    NamedRuleWithOperations: t(
      "A rule with operations, optionally narrowed to named objects.",
      {
        resourceNames: f(1, "[]string", "Names of the objects covered; empty covers every name.", atomic),
        ruleWithOperations: f(
          2,
          "admissionregistration/v1.RuleWithOperations",
          "The operations, groups, versions, resources and scope covered, written inline.",
          inline,
        ),
      },
      { structType: "atomic" },
    ),
    ParamKind: t(
      "The group version and kind of the resource that parameterizes a policy.",
      {
        apiVersion: f(1, "string", 'The API group and version, as "group/version".'),
        kind: f(2, "string", "The kind of the parameter resource."),
      },
      { structType: "atomic" },
    ),
    ParamRef: t(
      "Points a binding at the parameter resource it uses.",
      {
        name: f(1, "string", "Name of the parameter resource."),
        namespace: f(2, "string", "Namespace of the parameter resource; empty for cluster-scoped kinds."),
      },
      { structType: "atomic" },
    ),
    TypeChecking: t("The outcome of type-checking a policy's expressions.", {
      expressionWarnings: f(1, "[]ExpressionWarning", "Warnings, one per expression with a problem.", atomic),
    }),
    ValidatingAdmissionPolicy: t(
      "An admission policy of CEL validations that accepts or rejects objects without changing them.",
      {
        metadata: f(1, "meta/v1.ObjectMeta", "The object's metadata: name, labels, annotations and so on."),
        spec: f(
          2,
          "ValidatingAdmissionPolicySpec",
          "What the policy checks and which requests it applies to.",
        ),
        status: f(
          3,
          "ValidatingAdmissionPolicyStatus",
          "Set by the server: type-checking results and conditions that show whether the policy works as intended.",
        ),
      },
    ),
    ValidatingAdmissionPolicyBinding: t(
      "Applies a ValidatingAdmissionPolicy to a set of requests, optionally with a parameter resource; policies, bindings and parameters together configure admission checks for the cluster.",
      {
        metadata: f(1, "meta/v1.ObjectMeta", "The object's metadata: name, labels, annotations and so on."),
        spec: f(
          2,
          "ValidatingAdmissionPolicyBindingSpec",
          "Which policy is bound, with what parameter, to what, and how.",
        ),
      },
    ),
    ValidatingAdmissionPolicyBindingSpec: t(
      "What a binding applies, to which requests, and how failures are acted on.",
      {
        policyName: f(
          1,
          "string",
          "Name of the ValidatingAdmissionPolicy to bind; a binding whose policy does not exist is ignored.",
        ),
        paramRef: f(
          2,
          "ParamRef",
          "The parameter resource, of the kind the policy's paramKind names. When the policy has a paramKind but the resource is missing, the policy's failurePolicy applies.",
          { pointer: true },
        ),
        matchResources: f(
          3,
          "MatchResources",
          "Narrows the requests the policy's matchConstraints already select; unset, or without resourceRules, it adds no restriction.",
          { pointer: true },
        ),
        validationActions: f(
          4,
          "[]string",
          'What a failed validation does, as a set: "Deny" rejects the request, "Warn" returns an HTTP warning (code 299) to the client, "Audit" records the failure in the audit event. "Deny" and "Warn" cannot be combined. Failures of the policy itself are handled this way only when its failurePolicy is Fail. Clients should ignore values they do not know.',
          { ...set, enum: VALIDATION_ACTIONS },
        ),
      },
    ),
    ValidatingAdmissionPolicySpec: t("What a validating admission policy checks and how it handles errors.", {
      paramKind: f(
        1,
        "ParamKind",
        "The kind of resource that parameterizes the policy; without it, expressions get no params variable. A kind that does not exist makes the policy misconfigured, and a binding without paramRef gives null params.",
        { pointer: true },
      ),
      matchConstraints: f(
        2,
        "MatchResources",
        "Which requests the policy is meant for; a request must match all of it. Policies can never match policy or binding objects, so the cluster can always be repaired through the API.",
        { pointer: true },
      ),
      validations: f(
        3,
        "[]Validation",
        "The CEL checks to run; validations and auditAnnotations cannot both be empty.",
        atomic,
      ),
      failurePolicy: f(
        4,
        "string",
        'How errors are handled (expressions that fail to parse, type-check or run, a missing paramKind or parameter resource): "Fail" treats them as validation failures under the binding\'s validationActions, "Ignore" skips them. False results are not errors. Defaults to "Fail".',
        { enum: FAILURE_POLICIES, pointer: true },
      ),
      auditAnnotations: f(
        5,
        "[]AuditAnnotation",
        "CEL expressions whose results are added as annotations to the request's audit event; validations and auditAnnotations cannot both be empty.",
        atomic,
      ),
      matchConditions: f(
        6,
        "[]MatchCondition",
        "CEL conditions, at most 64, that a request already selected by matchConstraints must also meet; they can read params like validations do. Any false skips the policy; an error with none false rejects the request under failurePolicy Fail and skips the policy under Ignore.",
        { ...mergeBy("name"), ...mapList("name") },
      ),
    }),
    ValidatingAdmissionPolicyStatus: t("The observed state of a validating admission policy.", {
      observedGeneration: f(1, "int64", "The generation of the policy this status describes."),
      typeChecking: f(
        2,
        "TypeChecking",
        "Warnings from type-checking the policy's expressions; present once the check has finished.",
        { pointer: true },
      ),
      conditions: f(
        3,
        "[]meta/v1.Condition",
        "The policy's latest observed states, keyed by type.",
        mapList("type"),
      ),
    }),
    Validation: t("One CEL check of a validating admission policy.", {
      expression: f(
        1,
        "string",
        "A CEL expression that must evaluate to true for the request to pass. It can read object, oldObject, request, params (when the policy has a paramKind) and authorizer; of an object's metadata only name and generateName are visible. Property names outside [a-zA-Z_.-/][a-zA-Z0-9_.-/]* are hidden, and '__', '.', '-', '/' and CEL keywords are escaped as __underscores__, __dot__, __dash__, __slash__ and __keyword__. Set and map lists compare and concatenate by their list semantics.",
        { ...required, protoName: "Expression", omitEmpty: false },
      ),
      message: f(
        2,
        "string",
        "A single-line message returned when the check fails; needed when the expression spans lines. Without it a message naming the expression is used.",
      ),
      reason: f(
        3,
        "string",
        'The machine-readable reason (and HTTP status) reported when this is the first failing check: "Unauthorized", "Forbidden", "Invalid" or "RequestEntityTooLarge". Defaults to "Invalid".',
        { pointer: true },
      ),
      messageExpression: f(
        4,
        "string",
        "A CEL expression giving the failure message as a string; it wins over message. When it errors or yields an empty, blank or multi-line string, the failure is reported as if it were unset. It sees the same variables as expression except authorizer.",
      ),
    }),
  },
);
