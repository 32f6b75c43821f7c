import assert from "node:assert/strict";
import { it } from "node:test";
import { naming } from "../../backends/naming/index.ts";
import { ApiError } from "../request/api-error.ts";
import {
  asksImpersonation,
  distinctHeaders,
  impersonationRequests,
  splitServiceAccountUsername,
} from "./requests.ts";

const n = naming("kubernetes");
const gv = `${n.group("authentication")}/v1`;

it("reads user, groups, extras and uid in that order; extra keys lowercased and percent-decoded", () => {
  assert.deepEqual(
    impersonationRequests(
      {
        "impersonate-user": ["bob"],
        "impersonate-group": ["qa", "devs"],
        "impersonate-extra-scopes": ["view", "edit"],
        "impersonate-extra-example.com%2Fteam": ["a"],
        "impersonate-uid": ["u-1"],
        "user-agent": ["kubectl"],
      },
      n,
    ),
    [
      { kind: "User", name: "bob" },
      { kind: "Group", name: "qa" },
      { kind: "Group", name: "devs" },
      { kind: "UserExtra", key: "scopes", value: "view" },
      { kind: "UserExtra", key: "scopes", value: "edit" },
      { kind: "UserExtra", key: "example.com/team", value: "a" },
      { kind: "UID", uid: "u-1" },
    ],
  );
  assert.deepEqual(impersonationRequests({ accept: ["*/*"] }, n), []);
  assert.deepEqual(impersonationRequests({ "impersonate-user": [""] }, n), [], "an empty user is none");
});

it("a malformed escape in an extra key keeps the key as sent, as upstream does", () => {
  assert.deepEqual(
    impersonationRequests({ "impersonate-user": ["bob"], "impersonate-extra-a%zz": ["v"] }, n),
    [
      { kind: "User", name: "bob" },
      { kind: "UserExtra", key: "a%zz", value: "v" },
    ],
  );
});

it("service-account user names become service-account requests when well formed", () => {
  assert.deepEqual(impersonationRequests({ "impersonate-user": ["system:serviceaccount:ns1:robot"] }, n), [
    { kind: "ServiceAccount", namespace: "ns1", name: "robot" },
  ]);
  assert.deepEqual(splitServiceAccountUsername("system:serviceaccount:ns1:robot.v2"), {
    namespace: "ns1",
    name: "robot.v2",
  });
  for (const odd of [
    "system:serviceaccount:ns1",
    "system:serviceaccount:ns1:a:b",
    "system:serviceaccount::robot",
    "system:serviceaccount:NS:robot",
    "system:serviceaccount:ns.1:robot",
    "system:serviceaccounts:ns1:robot",
  ]) {
    assert.equal(splitServiceAccountUsername(odd), undefined, odd);
    assert.deepEqual(impersonationRequests({ "impersonate-user": [odd] }, n), [{ kind: "User", name: odd }]);
  }
});

it("groups, extras or a uid without a user are a 400 naming what was asked", () => {
  const bad = (headers: Record<string, string[]>, message: string) =>
    assert.throws(
      () => impersonationRequests(headers, n),
      (e: unknown) =>
        e instanceof ApiError && e.code === 400 && e.reason === "BadRequest" && e.message === message,
    );
  bad({ "impersonate-group": ["qa"] }, "requested [{Group  qa    }] without impersonating a user");
  bad(
    { "impersonate-extra-scopes": ["view"] },
    `requested [{UserExtra  view  ${gv}  scopes}] without impersonating a user`,
  );
  bad({ "impersonate-uid": ["u-1"] }, `requested [{UID  u-1  ${gv}  }] without impersonating a user`);
  bad(
    { "impersonate-user": [""], "impersonate-group": ["a", "b"] },
    "requested [{Group  a    } {Group  b    }] without impersonating a user",
  );
});

it("keeps repeated header lines apart (Node would join them with commas)", () => {
  const headers = distinctHeaders({
    rawHeaders: ["Impersonate-Group", "a,b", "impersonate-group", "c", "Host", "x"],
    headers: { "impersonate-group": "a,b, c" },
  });
  assert.deepEqual(headers["impersonate-group"], ["a,b", "c"]);
  assert.deepEqual(distinctHeaders({ headers: { a: "1", b: ["2", "3"] } }), { a: ["1"], b: ["2", "3"] });
});

it("asksImpersonation looks for any impersonate-* header name", () => {
  assert.equal(asksImpersonation({ authorization: "Bearer x", accept: "*/*" }), false);
  assert.equal(asksImpersonation({ "impersonate-user": "jane" }), true);
  assert.equal(asksImpersonation({ "impersonate-extra-scopes": "a" }), true);
  assert.equal(asksImpersonation({ "x-impersonate-user": "jane" }), false);
});
