import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  field,
  goMarshal,
  goQuote,
  goUnmarshal,
  list,
  normalizeTime,
  ptr,
  readLenient,
  struct,
  toPlainJson,
} from "./go-json.ts";

const item = struct(
  field("name", "string"),
  field("count", "int32"),
  field("size", "quantity"),
  field("limit", ptr("quantity"), true),
  field("labels", "stringMap", true),
  field("tags", list("string"), true),
  field("at", "time", true),
);

describe("Go JSON model", () => {
  const quotes: [string, string][] = [
    ["plain", '"plain"'],
    ['a"b\\c', '"a\\"b\\\\c"'],
    ["<a&b>", '"\\u003ca\\u0026b\\u003e"'],
    ["tab\tnl\ncr\r", '"tab\\tnl\\ncr\\r"'],
    ["\b\f\u0001", '"\\u0008\\u000c\\u0001"'],
    ["\u2028\u2029", '"\\u2028\\u2029"'],
    ["é😀", '"é😀"'],
    ["\ud800x", '"\\ufffdx"'],
  ];
  for (const [input, expected] of quotes) {
    it(`quotes ${JSON.stringify(input)} as Go does`, () => assert.equal(goQuote(input), expected));
  }

  const times: [string, string | undefined][] = [
    ["2024-05-01T09:00:00Z", "2024-05-01T09:00:00Z"],
    ["2024-05-01T09:00:00.999999Z", "2024-05-01T09:00:00Z"],
    ["2024-05-01T01:30:00+02:30", "2024-04-30T23:00:00Z"],
    ["2024-05-01T23:30:00-01:00", "2024-05-02T00:30:00Z"],
    ["2024-02-29T00:00:00Z", "2024-02-29T00:00:00Z"],
    ["0001-01-01T00:00:00Z", ""],
    ["2023-02-29T00:00:00Z", undefined],
    ["2024-05-01 09:00:00Z", undefined],
    ["2024-05-01T09:00:00", undefined],
    ["2024-05-01T24:00:00Z", undefined],
    ["yesterday", undefined],
  ];
  for (const [input, expected] of times) {
    it(`reads time ${input}`, () => assert.equal(normalizeTime(input), expected));
  }

  const decodes: [string, string, unknown][] = [
    [
      "fills zero values and matches keys case-insensitively",
      '{"NAME":"a","Size":"1000m","extra":[1]}',
      { name: "a", count: 0, size: "1", limit: null, labels: null, tags: null, at: "" },
    ],
    [
      "keys that fold to the same field: the later one wins",
      '{"name":"a","Name":"b","count":1,"count":2}',
      { name: "b", count: 2, size: "0", limit: null, labels: null, tags: null, at: "" },
    ],
    [
      "null leaves a value alone and clears pointers",
      '{"name":null,"limit":null,"size":null,"labels":{"a":null,"b":"x"},"at":"2024-05-01T10:00:00+01:00"}',
      {
        name: "",
        count: 0,
        size: "0",
        limit: null,
        labels: { a: "", b: "x" },
        tags: null,
        at: "2024-05-01T09:00:00Z",
      },
    ],
    [
      "quantities may be numbers",
      '{"size":5,"limit":" 2Gi "}',
      { name: "", count: 0, size: "5", limit: "2Gi", labels: null, tags: null, at: "" },
    ],
    [
      "null reads as the zero value",
      "null",
      { name: "", count: 0, size: "0", limit: null, labels: null, tags: null, at: "" },
    ],
  ];
  for (const [name, text, expected] of decodes) {
    it(`decodes: ${name}`, () => assert.deepEqual(goUnmarshal(item, text), { value: expected }));
  }

  const failures: [string, string][] = [
    ["not JSON", "{"],
    ["empty text", ""],
    ["a string where a struct goes", '"x"'],
    ["a number where a string goes", '{"name":1}'],
    ["a fraction where an int32 goes", '{"count":1.5}'],
    ["an int32 out of range", '{"count":2147483648}'],
    ["a bad quantity", '{"size":"lots"}'],
    ["a bool quantity", '{"limit":true}'],
    ["a bad time", '{"at":"noon"}'],
    ["a number in a string map", '{"labels":{"a":1}}'],
    ["an object where a list goes", '{"tags":{}}'],
  ];
  for (const [name, text] of failures) {
    it(`fails on ${name}`, () => assert.equal(goUnmarshal(item, text), undefined));
  }

  it("encodes in field order with omitempty, sorted map keys and null for nil", () => {
    const value = {
      name: "",
      count: 0,
      size: "0",
      limit: null,
      labels: { b: "2", a: "1" },
      tags: [],
      at: "",
    };
    assert.equal(
      goMarshal(item, value),
      '{"name":"","count":0,"size":"0","labels":{"a":"1","b":"2"},"at":null}',
    );
    assert.equal(
      goMarshal(struct(field("p", ptr("int32")), field("l", list("string"))), { p: null, l: null }),
      '{"p":null,"l":null}',
    );
    assert.equal(goMarshal(struct(field("t", "time", true)), { t: "" }), '{"t":null}');
  });

  it("writes plain JSON without nils or zero times", () => {
    const value = { name: "a", count: 0, size: "0", limit: null, labels: null, tags: ["x"], at: "" };
    assert.deepEqual(toPlainJson(item, value), { name: "a", count: 0, size: "0", tags: ["x"] });
  });

  it("reads stored JSON leniently", () => {
    assert.deepEqual(readLenient(item, { name: 5, count: "x", size: "lots", tags: ["a", 1], at: "noon" }), {
      name: "",
      count: 0,
      size: "lots",
      limit: null,
      labels: null,
      tags: ["a", ""],
      at: "noon",
    });
  });
});
