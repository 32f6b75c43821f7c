import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  annotationsSize,
  isAnnotationsSizeValid,
  isConfigMapKey,
  isDNS1123Label,
  isDNS1123Subdomain,
  isQualifiedName,
  isValidLabelValue,
  isValidPathSegmentName,
  regexError,
  TOTAL_ANNOTATION_SIZE_LIMIT,
  validateName,
} from "./names.ts";

const SUBDOMAIN_MSG =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const LABEL_MSG =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const QNAME_REGEX_MSG =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const LABEL_VALUE_MSG =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
const KEY_MSG =
  "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')";

describe("regexError", () => {
  it("without examples names only the regex", () => {
    assert.equal(regexError("bad", "x+"), "bad (regex used for validation is 'x+')");
  });
});

describe("DNS-1123 subdomain", () => {
  const cases: [string, string[]][] = [
    ["example.com", []],
    ["a", []],
    ["a-b.c-d", []],
    ["0.1", []],
    ["x".repeat(253), []],
    ["x".repeat(254), ["must be no more than 253 characters"]],
    ["Example.com", [SUBDOMAIN_MSG]],
    ["-a", [SUBDOMAIN_MSG]],
    ["a.", [SUBDOMAIN_MSG]],
    ["a..b", [SUBDOMAIN_MSG]],
    ["a_b", [SUBDOMAIN_MSG]],
    ["", [SUBDOMAIN_MSG]],
    [`${"x".repeat(253)}_`, ["must be no more than 253 characters", SUBDOMAIN_MSG]],
  ];
  for (const [value, want] of cases) {
    it(JSON.stringify(value.length > 20 ? `${value.slice(0, 10)}…(${value.length})` : value), () => {
      assert.deepEqual(isDNS1123Subdomain(value), want);
    });
  }
});

describe("DNS-1123 label", () => {
  const cases: [string, string[]][] = [
    ["my-name", []],
    ["123-abc", []],
    ["x".repeat(63), []],
    ["x".repeat(64), ["must be no more than 63 characters"]],
    ["a.b", ["must not contain dots"]],
    ["A", [LABEL_MSG]],
    ["a-", [LABEL_MSG]],
    ["", [LABEL_MSG]],
    ["a_b", [LABEL_MSG]],
  ];
  for (const [value, want] of cases) {
    it(JSON.stringify(value), () => assert.deepEqual(isDNS1123Label(value), want));
  }
  it("counts bytes, not characters", () => {
    assert.deepEqual(isDNS1123Label("é".repeat(32)), ["must be no more than 63 characters", LABEL_MSG]);
  });
});

describe("qualified names", () => {
  const cases: [string, string[]][] = [
    ["simple", []],
    ["Mixed_Case.name-1", []],
    ["example.com/name", []],
    ["x".repeat(63), []],
    ["x".repeat(64), ["name part must be no more than 63 characters"]],
    ["/name", ["prefix part must be non-empty"]],
    ["Example.com/name", [`prefix part ${SUBDOMAIN_MSG}`]],
    ["example.com/", ["name part must be non-empty", `name part ${QNAME_REGEX_MSG}`]],
    ["", ["name part must be non-empty", `name part ${QNAME_REGEX_MSG}`]],
    ["-a", [`name part ${QNAME_REGEX_MSG}`]],
    [
      "a/b/c",
      [
        `a qualified name ${QNAME_REGEX_MSG} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
      ],
    ],
  ];
  for (const [value, want] of cases) {
    it(JSON.stringify(value), () => assert.deepEqual(isQualifiedName(value), want));
  }
});

describe("label values", () => {
  const cases: [string, string[]][] = [
    ["", []],
    ["v1.2_3-x", []],
    ["x".repeat(63), []],
    ["x".repeat(64), ["must be no more than 63 characters"]],
    ["-x", [LABEL_VALUE_MSG]],
    ["a b", [LABEL_VALUE_MSG]],
  ];
  for (const [value, want] of cases) {
    it(JSON.stringify(value), () => assert.deepEqual(isValidLabelValue(value), want));
  }
});

describe("config keys", () => {
  const cases: [string, string[]][] = [
    ["key.name", []],
    ["KEY_NAME", []],
    [".hidden", []],
    ["x".repeat(253), []],
    ["x".repeat(254), ["must be no more than 253 characters"]],
    [".", ["must not be '.'"]],
    ["..", ["must not be '..'"]],
    ["..a", ["must not start with '..'"]],
    ["a/b", [KEY_MSG]],
    ["", [KEY_MSG]],
    ["a b", [KEY_MSG]],
  ];
  for (const [value, want] of cases) {
    it(JSON.stringify(value), () => assert.deepEqual(isConfigMapKey(value), want));
  }
});

describe("path segment names", () => {
  const cases: [string, string[]][] = [
    ["anything:Goes_Here~", []],
    [".", ["may not be '.'"]],
    ["..", ["may not be '..'"]],
    ["a/b", ["may not contain '/'"]],
    ["a%b/c", ["may not contain '/'", "may not contain '%'"]],
  ];
  for (const [value, want] of cases) {
    it(JSON.stringify(value), () => assert.deepEqual(isValidPathSegmentName(value), want));
  }
});

describe("validateName", () => {
  it("a generateName prefix may end in a dash", () => {
    assert.deepEqual(validateName("dns-subdomain", "web-", true), []);
    assert.deepEqual(validateName("dns-label", "web-", true), []);
    assert.deepEqual(validateName("dns-subdomain", "web-", false), [SUBDOMAIN_MSG]);
    assert.deepEqual(validateName("dns-label", "-", true), [LABEL_MSG]);
  });
  it("a path-segment prefix may be '.' but not contain '/'", () => {
    assert.deepEqual(validateName("path-segment", ".", true), []);
    assert.deepEqual(validateName("path-segment", ".", false), ["may not be '.'"]);
    assert.deepEqual(validateName("path-segment", "a/", true), ["may not contain '/'"]);
  });
});

describe("annotation size", () => {
  it("counts keys and values in bytes, up to 256 KiB", () => {
    assert.equal(annotationsSize({ ab: "é" }), 4);
    const half = TOTAL_ANNOTATION_SIZE_LIMIT / 2;
    assert.equal(isAnnotationsSizeValid({ k: "x".repeat(TOTAL_ANNOTATION_SIZE_LIMIT - 1) }), true);
    assert.equal(isAnnotationsSizeValid({ k: "x".repeat(TOTAL_ANNOTATION_SIZE_LIMIT) }), false);
    assert.equal(isAnnotationsSizeValid({ a: "x".repeat(half), b: "x".repeat(half) }), false);
  });
});

describe("DNS-1035 labels (Service names)", () => {
  it("start with a letter, as upstream requires", () => {
    assert.deepEqual(validateName("dns-1035-label", "web-1"), []);
    assert.deepEqual(validateName("dns-1035-label", "1web"), [
      "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
    ]);
    assert.equal(validateName("dns-1035-label", "a".repeat(64))[0], "must be no more than 63 characters");
  });
});
