// The spec's resourceVersion tables, cell by cell, as decisions.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { encodeContinue } from "./continue-token.ts";
import { InvalidRequestError } from "./errors.ts";
import { getMode, type ListModeRequest, listMode, watchStart } from "./read-options.ts";

const token = encodeContinue({ revision: 7, after: "ns/a" });

describe("get", () => {
  it("unset is most recent, 0 is any, a number is not older than", () => {
    assert.deepEqual(getMode(undefined), { kind: "mostRecent" });
    assert.deepEqual(getMode(""), { kind: "mostRecent" });
    assert.deepEqual(getMode("0"), { kind: "any" });
    assert.deepEqual(getMode("42"), { kind: "notOlderThan", revision: 42 });
  });
  for (const bad of ["abc", "-1", "1.5", " 1", "99999999999999999999"]) {
    it(`rejects resourceVersion ${JSON.stringify(bad)}`, () => {
      assert.throws(() => getMode(bad), InvalidRequestError);
    });
  }
});

describe("list", () => {
  const cells: [string, ListModeRequest, unknown][] = [
    ["no limit, unset", {}, { kind: "mostRecent" }],
    ["no limit, 0", { resourceVersion: "0" }, { kind: "any" }],
    ["no limit, n", { resourceVersion: "5" }, { kind: "notOlderThan", revision: 5 }],
    ["limit, unset", { limit: 10 }, { kind: "mostRecent" }],
    ["limit, 0", { limit: 10, resourceVersion: "0" }, { kind: "any" }],
    ["limit, n", { limit: 10, resourceVersion: "5" }, { kind: "exact", revision: 5 }],
    [
      "continue, unset",
      { limit: 10, continue: token },
      { kind: "continue", position: { revision: 7, after: "ns/a" } },
    ],
    [
      "continue, 0",
      { limit: 10, continue: token, resourceVersion: "0" },
      { kind: "continue", position: { revision: 7, after: "ns/a" } },
    ],
    ["Exact, n", { resourceVersion: "5", resourceVersionMatch: "Exact" }, { kind: "exact", revision: 5 }],
    [
      "Exact, n, limit",
      { resourceVersion: "5", resourceVersionMatch: "Exact", limit: 3 },
      { kind: "exact", revision: 5 },
    ],
    ["NotOlderThan, 0", { resourceVersion: "0", resourceVersionMatch: "NotOlderThan" }, { kind: "any" }],
    [
      "NotOlderThan, n, limit",
      { resourceVersion: "5", resourceVersionMatch: "NotOlderThan", limit: 3 },
      { kind: "notOlderThan", revision: 5 },
    ],
  ];
  for (const [name, req, expected] of cells) {
    it(name, () => assert.deepEqual(listMode(req), expected));
  }
  const invalid: [string, ListModeRequest, RegExp][] = [
    [
      "continue with n",
      { limit: 10, continue: token, resourceVersion: "5" },
      /not allowed when using continue/,
    ],
    ["Exact, unset", { resourceVersionMatch: "Exact" }, /forbidden unless resourceVersion is provided/],
    [
      "Exact, 0",
      { resourceVersionMatch: "Exact", resourceVersion: "0" },
      /"exact" is forbidden for resourceVersion "0"/,
    ],
    [
      "NotOlderThan, unset",
      { resourceVersionMatch: "NotOlderThan", limit: 2 },
      /forbidden unless resourceVersion/,
    ],
    [
      "match with continue",
      { resourceVersionMatch: "NotOlderThan", resourceVersion: "0", continue: token },
      /when continue/,
    ],
    [
      "unknown match",
      { resourceVersionMatch: "Newest", resourceVersion: "1" },
      /Unsupported value: "Newest"/,
    ],
    ["malformed continue", { continue: "not a token!" }, /continue key is not valid/],
  ];
  for (const [name, req, message] of invalid) {
    it(`400: ${name}`, () =>
      assert.throws(
        () => listMode(req),
        (e: unknown) => e instanceof InvalidRequestError && message.test(e.message),
      ));
  }
});

describe("watch", () => {
  it("unset and 0 send the current state, a number starts after it", () => {
    assert.deepEqual(watchStart({}, false), {
      from: { kind: "mostRecent" },
      initialEvents: true,
      initialEventsEndBookmark: false,
    });
    assert.deepEqual(watchStart({ resourceVersion: "0" }, false), {
      from: { kind: "any" },
      initialEvents: true,
      initialEventsEndBookmark: false,
    });
    assert.deepEqual(watchStart({ resourceVersion: "9" }, false), {
      from: { kind: "after", revision: 9 },
      initialEvents: false,
      initialEventsEndBookmark: false,
    });
  });
  it("sendInitialEvents=true needs NotOlderThan and the WatchList gate", () => {
    assert.deepEqual(watchStart({ sendInitialEvents: true, resourceVersionMatch: "NotOlderThan" }, true), {
      from: { kind: "mostRecent" },
      initialEvents: true,
      initialEventsEndBookmark: true,
    });
    assert.deepEqual(
      watchStart(
        { sendInitialEvents: true, resourceVersionMatch: "NotOlderThan", resourceVersion: "4" },
        true,
      ).from,
      {
        kind: "notOlderThan",
        revision: 4,
      },
    );
    assert.throws(
      () => watchStart({ sendInitialEvents: true }, true),
      /requires setting resourceVersionMatch to NotOlderThan/,
    );
    assert.throws(
      () => watchStart({ sendInitialEvents: true, resourceVersionMatch: "NotOlderThan" }, false),
      /WatchList feature gate/,
    );
    assert.throws(
      () => watchStart({ resourceVersionMatch: "NotOlderThan" }, true),
      /unless sendInitialEvents is provided/,
    );
  });
  it("sendInitialEvents=false streams changes only", () => {
    const start = watchStart(
      { sendInitialEvents: false, resourceVersionMatch: "NotOlderThan", resourceVersion: "3" },
      true,
    );
    assert.deepEqual(start, {
      from: { kind: "after", revision: 3 },
      initialEvents: false,
      initialEventsEndBookmark: false,
    });
  });
});
