// apiextensions/v1: CustomResourceDefinition, the schema language custom resources are described
// in (JSONSchemaProps and its union helpers), and the ConversionReview a conversion webhook sees.
import { f, mapList, mergeBy, pkg, required, t } from "./model.ts";

export const APIEXTENSIONS_V1 = pkg(
  "apiextensions/v1",
  "k8s.io.apiextensions_apiserver.pkg.apis.apiextensions.v1",
  {
    ConversionRequest: t(
      "What the API server asks a conversion webhook to do: which objects to convert and to which version.",
      {
        uid: f(
          1,
          "string",
          "Identifier of this one exchange, echoed back in the response so the two can be matched.",
          { omitEmpty: false },
        ),
        desiredAPIVersion: f(
          2,
          "string",
          "The group/version the objects should come back in, such as `example.com/v1`.",
          { omitEmpty: false },
        ),
        objects: f(3, "[]rawExtension", "The custom resources to convert, each a complete object.", {
          omitEmpty: false,
        }),
      },
    ),
    ConversionResponse: t(
      "A conversion webhook's answer: the converted objects and whether conversion worked.",
      {
        uid: f(1, "string", "The uid of the request being answered, copied from it unchanged.", {
          omitEmpty: false,
        }),
        convertedObjects: f(
          2,
          "[]rawExtension",
          "The objects in the requested version, in the order and number they were sent; empty when conversion failed. Only labels and annotations may change in their metadata.",
          { omitEmpty: false },
        ),
        result: f(
          3,
          "meta/v1.Status",
          "Outcome of the conversion: status `Success`, or `Failure` with a message that is shown to the user.",
          { omitEmpty: false },
        ),
      },
    ),
    ConversionReview: t(
      "The envelope exchanged with a conversion webhook, carrying either a request or a response.",
      {
        request: f(1, "ConversionRequest", "Set by the API server when it calls the webhook.", {
          pointer: true,
        }),
        response: f(2, "ConversionResponse", "Set by the webhook in its reply.", { pointer: true }),
      },
    ),
    CustomResourceColumnDefinition: t(
      "An extra column shown when custom resources are listed as a table (for example by `kubectl get`).",
      {
        name: f(1, "string", "Column heading shown to users.", { ...required, omitEmpty: false }),
        type: f(
          2,
          "string",
          "OpenAPI data type of the column's values: integer, number, string, boolean or date.",
          { ...required, omitEmpty: false },
        ),
        format: f(
          3,
          "string",
          "Optional OpenAPI format for the values; `name` marks the column that holds the object's name.",
        ),
        description: f(4, "string", "Explanation of the column for human readers."),
        priority: f(
          5,
          "int32",
          "Importance of the column; 0 is the most important, and columns above 0 may be hidden when space is short (shown with `-o wide`).",
        ),
        jsonPath: f(
          6,
          "string",
          "Simple JSONPath, array indexing allowed, applied to each object to compute the cell value.",
          { ...required, omitEmpty: false },
        ),
      },
    ),
    CustomResourceConversion: t(
      "How objects of a custom resource are converted from one of its versions to another.",
      {
        strategy: f(
          1,
          "string",
          "`None` only rewrites apiVersion; `Webhook` calls an external service described in `webhook` (and requires preserveUnknownFields to be false).",
          { ...required, omitEmpty: false },
        ),
        webhook: f(
          2,
          "WebhookConversion",
          "The conversion service to call; needed when strategy is `Webhook`.",
          { pointer: true },
        ),
      },
    ),
    CustomResourceDefinition: t(
      "Declares a new resource type served by the API server; its name must be `<plural>.<group>` from the spec.",
      {
        metadata: f(1, "meta/v1.ObjectMeta", "The object's metadata: name, labels, annotations and so on."),
        spec: f(
          2,
          "CustomResourceDefinitionSpec",
          "The resource's group, names, scope and versions, as the user wants them.",
          { ...required, omitEmpty: false },
        ),
        status: f(
          3,
          "CustomResourceDefinitionStatus",
          "What the server has observed and accepted for this definition.",
        ),
      },
    ),
    CustomResourceDefinitionCondition: t("One aspect of a CustomResourceDefinition's current state.", {
      type: f(1, "string", "Which aspect this is, for example Established, NamesAccepted or Terminating.", {
        ...required,
        omitEmpty: false,
      }),
      status: f(2, "string", "Whether the condition holds: True, False or Unknown.", {
        ...required,
        omitEmpty: false,
      }),
      lastTransitionTime: f(3, "time", "When the status last changed value."),
      reason: f(4, "string", "Short CamelCase word giving the cause of the latest change."),
      message: f(5, "string", "Human-readable details about the latest change."),
    }),
    CustomResourceDefinitionNames: t("The names under which a custom resource is served and referred to.", {
      plural: f(
        1,
        "string",
        "Lowercase plural used in request paths; together with the group it forms the definition's name.",
        { ...required, omitEmpty: false },
      ),
      singular: f(2, "string", "Lowercase singular name; defaults to the kind in lowercase."),
      shortNames: f(
        3,
        "[]string",
        "Lowercase abbreviations published in discovery, usable as `kubectl get <short>`.",
      ),
      kind: f(4, "string", "The `kind` value objects of this resource carry, usually singular CamelCase.", {
        ...required,
        omitEmpty: false,
      }),
      listKind: f(5, "string", "The kind of list responses; defaults to the kind followed by `List`."),
      categories: f(
        6,
        "[]string",
        "Group names (such as `all`) this resource belongs to, so clients can fetch several kinds at once.",
      ),
    }),
    CustomResourceDefinitionSpec: t("The shape and naming of a custom resource as requested by its author.", {
      group: f(
        1,
        "string",
        "API group the resource is served in; it must match the suffix of the definition's name.",
        { ...required, omitEmpty: false },
      ),
      names: f(3, "CustomResourceDefinitionNames", "Resource and kind names to serve.", {
        ...required,
        omitEmpty: false,
      }),
      scope: f(4, "string", "`Namespaced` or `Cluster`: whether objects live in a namespace.", {
        ...required,
        omitEmpty: false,
      }),
      versions: f(
        7,
        "[]CustomResourceDefinitionVersion",
        "Every version of the resource; discovery lists them with stable versions before beta and alpha, higher numbers first.",
        { ...required, omitEmpty: false },
      ),
      conversion: f(
        9,
        "CustomResourceConversion",
        "How objects move between versions; no conversion (`None`) by default.",
        { pointer: true },
      ),
      preserveUnknownFields: f(
        10,
        "bool",
        "Deprecated: keep fields absent from the schema when storing objects. Prefer `x-kubernetes-preserve-unknown-fields` in the schema.",
      ),
    }),
    CustomResourceDefinitionStatus: t("The observed state of a CustomResourceDefinition.", {
      conditions: f(1, "[]CustomResourceDefinitionCondition", "Current conditions, at most one per type.", {
        ...mapList("type"),
        omitEmpty: false,
      }),
      acceptedNames: f(
        2,
        "CustomResourceDefinitionNames",
        "The names discovery actually serves, which can lag behind or differ from the spec's.",
        { omitEmpty: false },
      ),
      storedVersions: f(
        3,
        "[]string",
        "Every version objects have ever been written in; a version stays in spec.versions while it is listed here, and migrations remove entries once done.",
        { omitEmpty: false },
      ),
    }),
    CustomResourceDefinitionVersion: t("One version of a custom resource and how it is served.", {
      name: f(1, "string", "Version name, such as `v1` or `v2beta1`, used in request paths.", {
        ...required,
        omitEmpty: false,
      }),
      served: f(2, "bool", "Whether the version is available through the REST API.", {
        ...required,
        omitEmpty: false,
      }),
      storage: f(
        3,
        "bool",
        "Whether objects are persisted in this version; exactly one version must say true.",
        { ...required, omitEmpty: false },
      ),
      deprecated: f(7, "bool", "Mark the version deprecated so requests to it get a warning. Default false."),
      deprecationWarning: f(
        8,
        "string",
        "Custom text for the deprecation warning, replacing the generated one; only allowed when deprecated is true.",
        { pointer: true },
      ),
      schema: f(
        4,
        "CustomResourceValidation",
        "Schema used to validate, prune and default objects of this version.",
        { pointer: true },
      ),
      subresources: f(
        5,
        "CustomResourceSubresources",
        "The status and scale subresources this version offers.",
        { pointer: true },
      ),
      additionalPrinterColumns: f(
        6,
        "[]CustomResourceColumnDefinition",
        "Extra columns for table output; without any, only an age column is shown.",
      ),
    }),
    CustomResourceSubresourceScale: t(
      "Where a custom resource keeps the values the `/scale` subresource reads and writes.",
      {
        specReplicasPath: f(
          1,
          "string",
          "JSON path under `.spec`, no array indexing, holding the desired replica count; GET on /scale fails when it has no value.",
          { ...required, omitEmpty: false },
        ),
        statusReplicasPath: f(
          2,
          "string",
          "JSON path under `.status`, no array indexing, holding the observed replica count; reported as 0 when absent.",
          { ...required, omitEmpty: false },
        ),
        labelSelectorPath: f(
          3,
          "string",
          "JSON path under `.spec` or `.status` to a string holding a serialized label selector; needed for autoscaling and reported empty when absent.",
          { pointer: true },
        ),
      },
    ),
    CustomResourceSubresourceStatus: t(
      "Turns on the `/status` subresource: writes to the main endpoint then leave `.status` alone, and writes to /status change only `.status`. It has no fields.",
      {},
    ),
    CustomResourceSubresources: t("Which subresources a custom resource version serves.", {
      status: f(
        1,
        "CustomResourceSubresourceStatus",
        "When present, serve `/status` and separate status updates from spec updates.",
        { pointer: true },
      ),
      scale: f(
        2,
        "CustomResourceSubresourceScale",
        "When present, serve `/scale`, answering with an autoscaling/v1 Scale.",
        { pointer: true },
      ),
    }),
    CustomResourceValidation: t("The validation schema of a custom resource version.", {
      openAPIV3Schema: f(
        1,
        "JSONSchemaProps",
        "OpenAPI v3 structural schema for validating and pruning objects.",
        { pointer: true },
      ),
    }),
    ExternalDocumentation: t("A pointer to documentation kept outside the schema.", {
      description: f(1, "string", "What the linked documentation covers."),
      url: f(2, "string", "Where the documentation lives."),
    }),
    JSON: {
      ...t("An arbitrary JSON value: object, array, string, number, boolean or null.", {
        raw: f(1, "bytes", "The value's JSON encoding."),
      }),
      jsonAs: "json",
    },
    JSONSchemaProps: t(
      "A schema in the OpenAPI v3 dialect of JSON Schema (draft 4), with extensions for custom resources.",
      {
        id: f(1, "string", "Identifier of the schema."),
        $schema: f(2, "string", "URI of the JSON Schema dialect in use.", { protoName: "schema" }),
        $ref: f(3, "string", "Reference to another schema (not allowed in custom resource schemas).", {
          protoName: "ref",
          pointer: true,
        }),
        description: f(4, "string", "Human-readable explanation of the value."),
        type: f(5, "string", "JSON type of the value: object, array, string, integer, number or boolean."),
        format: f(
          6,
          "string",
          "Refinement of the type, such as date-time, byte, int32, uuid or hostname; formats the server does not know are ignored.",
        ),
        title: f(7, "string", "Short title of the schema."),
        default: f(8, "JSON", "Value filled in when the field is missing from an object.", { pointer: true }),
        maximum: f(9, "double", "Largest allowed number.", { pointer: true }),
        exclusiveMaximum: f(10, "bool", "When true, the maximum itself is not allowed."),
        minimum: f(11, "double", "Smallest allowed number.", { pointer: true }),
        exclusiveMinimum: f(12, "bool", "When true, the minimum itself is not allowed."),
        maxLength: f(13, "int64", "Longest allowed string, in characters.", { pointer: true }),
        minLength: f(14, "int64", "Shortest allowed string, in characters.", { pointer: true }),
        pattern: f(15, "string", "Regular expression strings must match."),
        maxItems: f(16, "int64", "Most items an array may hold.", { pointer: true }),
        minItems: f(17, "int64", "Fewest items an array may hold.", { pointer: true }),
        uniqueItems: f(18, "bool", "When true, array items must all differ."),
        multipleOf: f(19, "double", "Numbers must be a whole multiple of this value.", { pointer: true }),
        enum: f(20, "[]JSON", "The only values allowed."),
        maxProperties: f(21, "int64", "Most properties an object may have.", { pointer: true }),
        minProperties: f(22, "int64", "Fewest properties an object may have.", { pointer: true }),
        required: f(23, "[]string", "Properties an object must contain."),
        items: f(
          24,
          "JSONSchemaPropsOrArray",
          "Schema of array items (a single schema, or one per position).",
          { pointer: true },
        ),
        allOf: f(25, "[]JSONSchemaProps", "Schemas the value must satisfy all of."),
        oneOf: f(26, "[]JSONSchemaProps", "Schemas the value must satisfy exactly one of."),
        anyOf: f(27, "[]JSONSchemaProps", "Schemas the value must satisfy at least one of."),
        not: f(28, "JSONSchemaProps", "A schema the value must not satisfy.", { pointer: true }),
        properties: f(29, "{}JSONSchemaProps", "Schemas of an object's known properties, by name."),
        additionalProperties: f(
          30,
          "JSONSchemaPropsOrBool",
          "Schema for properties not named in `properties`, or a boolean allowing or forbidding them.",
          { pointer: true },
        ),
        patternProperties: f(
          31,
          "{}JSONSchemaProps",
          "Schemas for properties whose names match a regular expression.",
        ),
        dependencies: f(
          32,
          "{}JSONSchemaPropsOrStringArray",
          "Per property name: a schema, or a list of other properties, that applies when that property is present.",
        ),
        additionalItems: f(
          33,
          "JSONSchemaPropsOrBool",
          "Schema for array items beyond those given positionally, or a boolean allowing or forbidding them.",
          { pointer: true },
        ),
        definitions: f(34, "{}JSONSchemaProps", "Named schemas that other parts of the schema may refer to."),
        externalDocs: f(35, "ExternalDocumentation", "Link to further documentation.", { pointer: true }),
        example: f(36, "JSON", "A sample value for documentation.", { pointer: true }),
        nullable: f(37, "bool", "When true, null is accepted as a value."),
        "x-kubernetes-preserve-unknown-fields": f(
          38,
          "bool",
          "Keep fields that the schema does not mention instead of pruning them, down to the next level that declares properties or additionalProperties. Only true or unset is allowed.",
          { protoName: "xKubernetesPreserveUnknownFields", pointer: true },
        ),
        "x-kubernetes-embedded-resource": f(
          39,
          "bool",
          "The value is a complete embedded object with apiVersion, kind and metadata, which are checked automatically; type must be object.",
          { protoName: "xKubernetesEmbeddedResource" },
        ),
        "x-kubernetes-int-or-string": f(
          40,
          "bool",
          "The value may be either an integer or a string; type may then be empty, or given as an anyOf of integer and string.",
          { protoName: "xKubernetesIntOrString" },
        ),
        "x-kubernetes-list-map-keys": f(
          41,
          "[]string",
          "For an array with list type `map`: the scalar item properties that together identify an item. Each must be required or defaulted.",
          { protoName: "xKubernetesListMapKeys" },
        ),
        "x-kubernetes-list-type": f(
          42,
          "string",
          "How an array merges: `atomic` (replaced whole, the default), `set` (unique scalar values) or `map` (objects identified by their key properties).",
          { protoName: "xKubernetesListType", pointer: true },
        ),
        "x-kubernetes-map-type": f(
          43,
          "string",
          "How an object merges: `granular` (each key on its own, the default) or `atomic` (replaced whole).",
          { protoName: "xKubernetesMapType", pointer: true },
        ),
        "x-kubernetes-validations": f(
          44,
          "[]ValidationRule",
          "CEL rules evaluated against the value at this point in the schema.",
          { protoName: "xKubernetesValidations", ...mergeBy("rule"), ...mapList("rule") },
        ),
      },
    ),
    JSONSchemaPropsOrArray: {
      ...t("In JSON, either one schema or an array of schemas.", {
        schema: f(1, "JSONSchemaProps", "The single schema, when one is given.", { pointer: true }),
        jSONSchemas: f(2, "[]JSONSchemaProps", "The schemas, when an array is given."),
      }),
      jsonAs: "json",
    },
    JSONSchemaPropsOrBool: {
      ...t("In JSON, either a schema or a boolean; true when not set.", {
        allows: f(1, "bool", "The boolean form: whether anything is permitted."),
        schema: f(2, "JSONSchemaProps", "The schema form.", { pointer: true }),
      }),
      jsonAs: "json",
    },
    JSONSchemaPropsOrStringArray: {
      ...t("In JSON, either a schema or an array of strings.", {
        schema: f(1, "JSONSchemaProps", "The schema form.", { pointer: true }),
        property: f(2, "[]string", "The string-array form: names of properties."),
      }),
      jsonAs: "json",
    },
    ServiceReference: t("Points at an in-cluster Service that hosts a webhook.", {
      namespace: f(1, "string", "Namespace the Service is in.", { ...required, omitEmpty: false }),
      name: f(2, "string", "Name of the Service.", { ...required, omitEmpty: false }),
      path: f(3, "string", "URL path to send requests to on the Service.", { pointer: true }),
      port: f(4, "int32", "Service port to call, 1 to 65535; 443 when unset.", { pointer: true }),
    }),
    ValidationRule: t(
      "A CEL expression that a value must satisfy, with the message shown when it does not.",
      {
        rule: f(
          1,
          "string",
          "CEL expression where `self` is the value at the rule's place in the schema; it must evaluate to true. For example `self.minReplicas <= self.maxReplicas`.",
          { ...required, omitEmpty: false },
        ),
        message: f(
          2,
          "string",
          "Single-line error text when the rule fails; required when the rule spans several lines. Defaults to one naming the failed rule.",
        ),
        messageExpression: f(
          3,
          "string",
          "CEL expression producing the error text as a string; it wins over `message`, which is used instead if it errors or yields a blank or multi-line result.",
        ),
      },
    ),
    WebhookClientConfig: t("How to reach a webhook over TLS: by URL or by in-cluster Service.", {
      url: f(
        3,
        "string",
        "Location of the webhook as an `https://` URL, without user info, query or fragment. Set exactly one of url and service.",
        { pointer: true },
      ),
      service: f(
        1,
        "ServiceReference",
        "The Service hosting the webhook, for webhooks running in the cluster.",
        { pointer: true },
      ),
      caBundle: f(
        2,
        "bytes",
        "PEM certificate authorities to verify the webhook's certificate; the system roots when empty.",
      ),
    }),
    WebhookConversion: t("The webhook that converts custom resources between versions.", {
      clientConfig: f(2, "WebhookClientConfig", "How to call the webhook when strategy is `Webhook`.", {
        pointer: true,
      }),
      conversionReviewVersions: f(
        3,
        "[]string",
        "ConversionReview versions the webhook understands, most preferred first; the server uses the first it supports and fails conversion if none match.",
        { ...required, omitEmpty: false },
      ),
    }),
  },
);
