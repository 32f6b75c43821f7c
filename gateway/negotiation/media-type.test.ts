// Output and input negotiation against the headers real clients send.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { naming } from "../../backends/naming/index.ts";
import { ApiError } from "../request/api-error.ts";
import {
  errorProtobufType,
  isPrettyPrint,
  type NegotiateOutputOptions,
  negotiateInput,
  negotiateOutput,
  type OutputChoice,
  parseAccept,
  parseContentType,
} from "./media-type.ts";

const k8s = naming("kubernetes");
const cluster = naming("cluster");

// Headers captured from the clients.
const KUBECTL_GET =
  "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json";
const KUBECTL_DISCOVERY_127 =
  "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json";
const KUBECTL_DISCOVERY_133 =
  "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json";
const CLIENT_GO_DEFAULT = "application/json, */*";
const CLIENT_GO_PROTOBUF = "application/vnd.kubernetes.protobuf, */*";
const METADATA_CLIENT_LIST =
  "application/vnd.kubernetes.protobuf;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json";

const NOT_ACCEPTABLE_K8S =
  "only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf";
const NOT_ACCEPTABLE_STREAM_K8S =
  "only the following media types are accepted: application/json;stream=watch, application/vnd.kubernetes.protobuf;stream=watch";

const base: NegotiateOutputOptions = { naming: k8s, tableSupported: true, protobufSupported: true };

const JSON_OUT: OutputChoice = { kind: "json", encoding: "json", contentType: "application/json" };
const YAML_OUT: OutputChoice = { kind: "yaml", encoding: "yaml", contentType: "application/yaml" };
const PROTOBUF_OUT: OutputChoice = {
  kind: "protobuf",
  encoding: "protobuf",
  contentType: "application/vnd.kubernetes.protobuf",
};
const TABLE_V1: OutputChoice = {
  kind: "table",
  encoding: "json",
  contentType: "application/json",
  metaVersion: "v1",
  tableVersion: "v1",
  includeObject: "Metadata",
};

function notAcceptable(message: string) {
  return (err: unknown) => {
    assert.ok(err instanceof ApiError);
    assert.equal(err.code, 406);
    assert.equal(err.reason, "NotAcceptable");
    assert.equal(err.message, message);
    return true;
  };
}

describe("negotiateOutput", () => {
  const cases: [string, string | undefined, Partial<NegotiateOutputOptions>, OutputChoice][] = [
    ["kubectl get: Table v1 first", KUBECTL_GET, {}, TABLE_V1],
    ["kubectl get, resource without Table: plain JSON", KUBECTL_GET, { tableSupported: false }, JSON_OUT],
    ["kubectl -o json / -o yaml / python / client-node", "application/json", {}, JSON_OUT],
    ["no Accept", undefined, {}, JSON_OUT],
    ["empty Accept", "", {}, JSON_OUT],
    ["client-go default", CLIENT_GO_DEFAULT, {}, JSON_OUT],
    ["client-go protobuf", CLIENT_GO_PROTOBUF, {}, PROTOBUF_OUT],
    [
      "client-go protobuf on a resource without protobuf: the */* clause",
      CLIENT_GO_PROTOBUF,
      { protobufSupported: false },
      JSON_OUT,
    ],
    ["kubectl 1.27 discovery: the apidiscovery conversion is not ours", KUBECTL_DISCOVERY_127, {}, JSON_OUT],
    ["kubectl 1.33 discovery", KUBECTL_DISCOVERY_133, {}, JSON_OUT],
    ["*/*", "*/*", {}, JSON_OUT],
    ["application/*", "application/*", {}, JSON_OUT],
    ["bare *", "*", {}, JSON_OUT],
    ["yaml", "application/yaml", {}, YAML_OUT],
    ["charset parameter ignored", "application/json; charset=utf-8", {}, JSON_OUT],
    ["yaml with charset", "application/yaml;charset=UTF-8", {}, YAML_OUT],
    ["higher q first", "application/json;q=0.1, application/yaml;q=0.9", {}, YAML_OUT],
    ["equal q keeps header order", "application/yaml, application/json", {}, YAML_OUT],
    [
      "concrete type before */* even with lower q (upstream ordering)",
      "*/*, application/yaml;q=0.5",
      {},
      YAML_OUT,
    ],
    ["q=0 is still acceptable", "application/yaml;q=0", {}, YAML_OUT],
    ["unparsable q counts as 0", "application/yaml;q=abc, application/json;q=0.001", {}, JSON_OUT],
    ["malformed clauses skipped", "application, a/b/c, application/yaml", {}, YAML_OUT],
    ["stream=watch allowed on JSON", "application/json;stream=watch", {}, JSON_OUT],
    ["stream=watch makes YAML unusable", "application/yaml;stream=watch, application/json", {}, JSON_OUT],
    ["other stream schemas unusable", "application/json;stream=other, application/yaml", {}, YAML_OUT],
    ["sv=v1 allowed", "application/yaml;sv=v1", {}, YAML_OUT],
    ["sv=v2 unusable", "application/yaml;sv=v2, application/json", {}, JSON_OUT],
    ["pretty=1 parameter", "application/json;pretty=1", {}, { ...JSON_OUT, pretty: true }],
    ["pretty query", "application/json", { pretty: "true" }, { ...JSON_OUT, pretty: true }],
    [
      "pretty query false beats curl",
      "application/json",
      { pretty: "false", userAgent: "curl/8.0" },
      JSON_OUT,
    ],
    ["curl gets pretty JSON", "*/*", { userAgent: "curl/8.0" }, { ...JSON_OUT, pretty: true }],
    ["no pretty YAML", "application/yaml", { pretty: "true" }, YAML_OUT],
    [
      "kubectl user agent is not pretty",
      "application/json",
      { userAgent: "kubectl/v1.27.16 (linux/amd64)" },
      JSON_OUT,
    ],
    [
      "Table v1beta1",
      "application/json;as=Table;v=v1beta1;g=meta.k8s.io",
      {},
      { ...TABLE_V1, metaVersion: "v1beta1", tableVersion: "v1beta1" },
    ],
    [
      "Table as YAML",
      "application/yaml;as=Table;v=v1;g=meta.k8s.io",
      {},
      { ...TABLE_V1, encoding: "yaml", contentType: "application/yaml" },
    ],
    ["Table over */*", "*/*;as=Table;v=v1;g=meta.k8s.io", {}, TABLE_V1],
    [
      "Table never in protobuf",
      "application/vnd.kubernetes.protobuf;as=Table;v=v1;g=meta.k8s.io,application/json",
      {},
      JSON_OUT,
    ],
    ["Table without g", "application/json;as=Table;v=v1,application/yaml", {}, YAML_OUT],
    [
      "Table in an unknown version",
      "application/json;as=Table;v=v2;g=meta.k8s.io,application/yaml",
      {},
      YAML_OUT,
    ],
    ["g and v without as", "application/json;v=v1;g=meta.k8s.io,application/yaml", {}, YAML_OUT],
    [
      "unknown conversion kind",
      "application/json;as=Status;v=v1;g=meta.k8s.io,application/yaml",
      {},
      YAML_OUT,
    ],
    [
      "includeObject=Object",
      KUBECTL_GET,
      { includeObject: "Object" },
      { ...TABLE_V1, includeObject: "Object" },
    ],
    ["includeObject=None", KUBECTL_GET, { includeObject: "None" }, { ...TABLE_V1, includeObject: "None" }],
    ["includeObject empty is Metadata", KUBECTL_GET, { includeObject: "" }, TABLE_V1],
    ["includeObject not checked without Table", "application/json", { includeObject: "bogus" }, JSON_OUT],
    [
      "metadata client list, protobuf",
      METADATA_CLIENT_LIST,
      {},
      {
        kind: "partial-metadata-list",
        encoding: "protobuf",
        contentType: "application/vnd.kubernetes.protobuf",
        metaVersion: "v1",
      },
    ],
    [
      "metadata client list on a resource without protobuf",
      METADATA_CLIENT_LIST,
      { protobufSupported: false },
      { kind: "partial-metadata-list", encoding: "json", contentType: "application/json", metaVersion: "v1" },
    ],
    [
      "custom resources: metadata in protobuf although the kind is not",
      METADATA_CLIENT_LIST,
      { protobufSupported: false, protobufMetaSupported: true },
      {
        kind: "partial-metadata-list",
        encoding: "protobuf",
        contentType: "application/vnd.kubernetes.protobuf",
        metaVersion: "v1",
      },
    ],
    [
      "PartialObjectMetadata v1beta1",
      "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1beta1",
      {},
      { kind: "partial-metadata", encoding: "json", contentType: "application/json", metaVersion: "v1beta1" },
    ],
    [
      "PartialObjectMetadata as YAML",
      "application/yaml;as=PartialObjectMetadata;g=meta.k8s.io;v=v1",
      {},
      { kind: "partial-metadata", encoding: "yaml", contentType: "application/yaml", metaVersion: "v1" },
    ],
  ];
  for (const [name, accept, options, expected] of cases) {
    it(name, () => assert.deepEqual(negotiateOutput(accept, { ...base, ...options }), expected));
  }

  const refused: [string, string, Partial<NegotiateOutputOptions>][] = [
    ["text/html", "text/html", {}],
    ["types are case-sensitive", "Application/JSON", {}],
    [
      "protobuf only, resource without protobuf",
      "application/vnd.kubernetes.protobuf",
      { protobufSupported: false },
    ],
    [
      "Table only, resource without Table",
      "application/json;as=Table;v=v1;g=meta.k8s.io",
      { tableSupported: false },
    ],
    ["the other preset's protobuf type", "application/vnd.cluster.protobuf", {}],
    ["a subtype wildcard of another type", "text/*", {}],
  ];
  for (const [name, accept, options] of refused) {
    it(`406: ${name}`, () => {
      assert.throws(
        () => negotiateOutput(accept, { ...base, ...options }),
        notAcceptable(NOT_ACCEPTABLE_K8S),
      );
    });
  }

  it("406 lists the server's types even when protobuf is not selectable", () => {
    assert.throws(
      () => negotiateOutput("text/plain", { ...base, protobufSupported: false }),
      notAcceptable(NOT_ACCEPTABLE_K8S),
    );
  });

  it("400 for an invalid includeObject on a Table request", () => {
    assert.throws(
      () => negotiateOutput(KUBECTL_GET, { ...base, includeObject: "bogus" }),
      (err: unknown) => {
        assert.ok(err instanceof ApiError);
        assert.equal(err.code, 400);
        assert.equal(
          err.message,
          `Unable to convert to Table as requested: includeObject: Invalid value: "bogus": must be 'Metadata', 'Object', 'None', or empty`,
        );
        return true;
      },
    );
  });

  describe("cluster naming", () => {
    const options = { ...base, naming: cluster };
    it("Table in meta.cluster.io", () => {
      assert.deepEqual(
        negotiateOutput("application/json;as=Table;v=v1;g=meta.cluster.io,application/json", options),
        TABLE_V1,
      );
    });
    it("meta.k8s.io is not a group of this server", () => {
      assert.deepEqual(negotiateOutput(KUBECTL_GET, options), JSON_OUT);
    });
    it("its protobuf type", () => {
      assert.deepEqual(negotiateOutput("application/vnd.cluster.protobuf", options), {
        ...PROTOBUF_OUT,
        contentType: "application/vnd.cluster.protobuf",
      });
    });
    it("upstream's Protobuf type too, answered in that type (client-go asks for it)", () => {
      assert.deepEqual(negotiateOutput(CLIENT_GO_PROTOBUF, options), PROTOBUF_OUT);
      assert.deepEqual(negotiateOutput(CLIENT_GO_PROTOBUF, { ...options, stream: true }), {
        ...PROTOBUF_OUT,
        contentType: "application/vnd.kubernetes.protobuf;stream=watch",
        stream: true,
      });
    });
    it("406 names its types", () => {
      assert.throws(
        () => negotiateOutput("text/plain", options),
        notAcceptable(
          "only the following media types are accepted: application/json, application/yaml, application/vnd.cluster.protobuf, application/vnd.kubernetes.protobuf",
        ),
      );
    });
  });

  describe("watch", () => {
    const watch = { ...base, stream: true };
    const cases: [string, string | undefined, Partial<NegotiateOutputOptions>, OutputChoice][] = [
      ["kubectl get -w: Table", KUBECTL_GET, {}, { ...TABLE_V1, stream: true }],
      ["kubectl get -w -o json, informers", "application/json", {}, { ...JSON_OUT, stream: true }],
      ["no Accept", undefined, {}, { ...JSON_OUT, stream: true }],
      [
        "protobuf",
        CLIENT_GO_PROTOBUF,
        {},
        { ...PROTOBUF_OUT, contentType: "application/vnd.kubernetes.protobuf;stream=watch", stream: true },
      ],
      ["never pretty", "application/json;pretty=1", { pretty: "true" }, { ...JSON_OUT, stream: true }],
      [
        "PartialObjectMetadata",
        "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1",
        {},
        {
          kind: "partial-metadata",
          encoding: "json",
          contentType: "application/json",
          metaVersion: "v1",
          stream: true,
        },
      ],
    ];
    for (const [name, accept, options, expected] of cases) {
      it(name, () => assert.deepEqual(negotiateOutput(accept, { ...watch, ...options }), expected));
    }
    it("YAML cannot stream: 406 listing the streaming types", () => {
      assert.throws(
        () => negotiateOutput("application/yaml", watch),
        notAcceptable(NOT_ACCEPTABLE_STREAM_K8S),
      );
    });
    it("the first usable clause decides, even if a later one could stream", () => {
      assert.throws(
        () => negotiateOutput("application/yaml, application/json", watch),
        notAcceptable(NOT_ACCEPTABLE_STREAM_K8S),
      );
    });
    it("Table as YAML cannot stream", () => {
      assert.throws(
        () => negotiateOutput("application/yaml;as=Table;v=v1;g=meta.k8s.io", watch),
        notAcceptable(NOT_ACCEPTABLE_STREAM_K8S),
      );
    });
    it("nothing acceptable: 406 listing the plain types", () => {
      assert.throws(() => negotiateOutput("text/html", watch), notAcceptable(NOT_ACCEPTABLE_K8S));
    });
  });
});

describe("parseAccept", () => {
  it("parameters, spaces and q", () => {
    assert.deepEqual(parseAccept(" application/json ; as=Table ;q=0.5;v = v1, */*"), [
      { type: "*", subType: "*", q: 1, params: {} },
      { type: "application", subType: "json", q: 0.5, params: { as: "Table", v: "v1" } },
    ]);
  });
  it("q is a 32-bit float; a value with spaces or garbage is 0", () => {
    assert.equal(parseAccept("a/b;q=0.1")[0]!.q, Math.fround(0.1));
    assert.equal(parseAccept("a/b;q= 0.5")[0]!.q, 0);
    assert.equal(parseAccept("a/b;q=0.5 ;x=1")[0]!.q, 0);
    assert.equal(parseAccept("a/b;q=x")[0]!.q, 0);
  });
  it("parameters without a value or with two '=' are dropped", () => {
    assert.deepEqual(parseAccept("a/b;x;y=;z=1=2;w=3")[0]!.params, { w: "3" });
  });
  it("skips clauses without a subtype, with two slashes, or empty", () => {
    assert.deepEqual(
      parseAccept("text,,a/b/c,c/d").map((c) => `${c.type}/${c.subType}`),
      ["c/d"],
    );
  });
});

describe("isPrettyPrint", () => {
  const cases: [string | undefined, string | undefined, boolean][] = [
    [undefined, undefined, false],
    ["true", undefined, true],
    ["1", undefined, true],
    ["T", undefined, true],
    ["yes", "curl/8", false],
    ["", "curl/8", true],
    [undefined, "Wget/1.21", true],
    [undefined, "Mozilla/5.0 (X11)", true],
    [undefined, "python-requests/2", false],
  ];
  for (const [query, agent, expected] of cases) {
    it(`pretty=${query} agent=${agent}`, () => assert.equal(isPrettyPrint(query, agent), expected));
  }
});

describe("negotiateInput", () => {
  const BODY = ["application/json", "application/yaml", "application/vnd.kubernetes.protobuf"];
  const PATCH = [
    "application/json-patch+json",
    "application/merge-patch+json",
    "application/strategic-merge-patch+json",
    "application/apply-patch+yaml",
  ];
  const accepted: [string | undefined, string][] = [
    [undefined, "application/json"],
    ["", "application/json"],
    ["application/json", "application/json"],
    ["application/json; charset=utf-8", "application/json"],
    ['application/json;charset="utf-8"', "application/json"],
    ["Application/JSON", "application/json"],
    [" application/yaml ", "application/yaml"],
    ["application/json;", "application/json"],
    ["application/vnd.kubernetes.protobuf", "application/vnd.kubernetes.protobuf"],
  ];
  for (const [contentType, expected] of accepted) {
    it(`body ${JSON.stringify(contentType)}`, () =>
      assert.equal(negotiateInput(contentType, BODY), expected));
  }
  const refused = [
    "text/plain",
    "application/json; charset",
    "application/json/x",
    "application/json; a=1; a=2",
    "application",
    "/json",
  ];
  for (const contentType of refused) {
    it(`415 for body ${JSON.stringify(contentType)}`, () => {
      assert.throws(
        () => negotiateInput(contentType, BODY),
        (err: unknown) => {
          assert.ok(err instanceof ApiError);
          assert.equal(err.code, 415);
          assert.equal(err.reason, "UnsupportedMediaType");
          assert.equal(
            err.message,
            "the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf",
          );
          return true;
        },
      );
    });
  }
  it("a bare type without subtype parses (and is then not allowed)", () => {
    assert.deepEqual(parseContentType("text"), { mediaType: "text", params: {} });
  });

  const patchAccepted: [string, string][] = [
    ["application/merge-patch+json", "application/merge-patch+json"],
    ["application/merge-patch+json; charset=utf-8", "application/merge-patch+json"],
    ["application/apply-patch+yaml", "application/apply-patch+yaml"],
    ["application/strategic-merge-patch+json", "application/strategic-merge-patch+json"],
  ];
  for (const [contentType, expected] of patchAccepted) {
    it(`patch ${contentType}`, () =>
      assert.equal(negotiateInput(contentType, PATCH, { mode: "patch" }), expected));
  }
  for (const contentType of [
    undefined,
    "",
    "Application/merge-patch+json",
    "application/json",
    " application/merge-patch+json",
  ]) {
    it(`415 for patch ${JSON.stringify(contentType)}`, () => {
      assert.throws(
        () => negotiateInput(contentType, PATCH, { mode: "patch" }),
        (err: unknown) =>
          err instanceof ApiError &&
          err.code === 415 &&
          err.message ===
            "the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json, application/apply-patch+yaml",
      );
    });
  }
});

describe("the encoding of an error's Status", () => {
  const cases: [string, string | undefined, string | undefined][] = [
    ["no Accept: JSON", undefined, undefined],
    ["JSON", "application/json", undefined],
    ["client-go's Protobuf first", CLIENT_GO_PROTOBUF, "application/vnd.kubernetes.protobuf"],
    [
      "the cluster preset's type",
      "application/vnd.cluster.protobuf, application/json",
      "application/vnd.cluster.protobuf",
    ],
    [
      "JSON weighted above Protobuf",
      "application/vnd.kubernetes.protobuf;q=0.5, application/json",
      undefined,
    ],
    [
      "Table first: JSON (a Table is no form of an error)",
      `${KUBECTL_GET},application/vnd.kubernetes.protobuf`,
      undefined,
    ],
    ["the metadata client: its JSON clause", METADATA_CLIENT_LIST, undefined],
    ["nothing this server has", "text/html", undefined],
    [
      "a conversion is skipped, not chosen: the next clause decides",
      "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1, application/vnd.kubernetes.protobuf",
      "application/vnd.kubernetes.protobuf",
    ],
  ];
  for (const [name, accept, expected] of cases) {
    it(name, () => assert.equal(errorProtobufType(accept), expected));
  }
});
