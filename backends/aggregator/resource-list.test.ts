import assert from "node:assert/strict";
import { it } from "node:test";
import { readResourceList } from "./resource-list.ts";

it("reads an APIResourceList, and refuses garbage and fields of the wrong type with where they are", () => {
  const good = {
    kind: "APIResourceList",
    apiVersion: "v1",
    groupVersion: "ext.example.com/v1",
    resources: [
      { name: "widgets", namespaced: true, kind: "Widget", verbs: ["get"], shortNames: null, extra: 5 },
      null,
    ],
  };
  assert.deepEqual(readResourceList(JSON.stringify(good)), { list: good });
  assert.deepEqual(readResourceList('{"kind":"APIResourceList"}'), { list: { kind: "APIResourceList" } });
  for (const [body, problem] of [
    ["\u0000{{", "not an APIResourceList"],
    ["[]", "not an APIResourceList"],
    ["null", "not an APIResourceList"],
    ['{"kind":"Status"}', "not an APIResourceList"],
    ['{"kind":"APIResourceList","groupVersion":1}', "not an APIResourceList: groupVersion: not a string"],
    ['{"kind":"APIResourceList","resources":{}}', "not an APIResourceList: resources: not a list"],
    [
      '{"kind":"APIResourceList","resources":[{"name":"a"},42]}',
      "not an APIResourceList: resources[1]: not an object",
    ],
    [
      '{"kind":"APIResourceList","resources":[{"name":5}]}',
      "not an APIResourceList: resources[0].name: not a string",
    ],
    [
      '{"kind":"APIResourceList","resources":[{"namespaced":"yes"}]}',
      "not an APIResourceList: resources[0].namespaced: not a boolean",
    ],
    [
      '{"kind":"APIResourceList","resources":[{"verbs":7}]}',
      "not an APIResourceList: resources[0].verbs: not a list of strings",
    ],
    [
      '{"kind":"APIResourceList","resources":[{"categories":["a",1]}]}',
      "not an APIResourceList: resources[0].categories: not a list of strings",
    ],
  ] as const)
    assert.deepEqual(readResourceList(body), { problem }, body);
});
