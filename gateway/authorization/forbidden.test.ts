import assert from "node:assert/strict";
import { it } from "node:test";
import { naming } from "../../backends/naming/index.ts";
import type { UserInfo } from "../pipeline/index.ts";
import { parseRequestInfo } from "../request/request-info.ts";
import { requestAttributes } from "./attributes.ts";
import { forbidden } from "./forbidden.ts";

const alice: UserInfo = { username: "alice", uid: "", groups: ["system:authenticated"], extra: {} };

/** The 403 for `method path` as alice, with an authorizer's reason. */
function denial(method: string, path: string, reason = "") {
  const url = new URL(path, "https://x");
  const info = parseRequestInfo(method, path, url.searchParams);
  const err = forbidden(requestAttributes(alice, info), reason);
  assert.equal(err.code, 403);
  assert.equal(err.reason, "Forbidden");
  return err.toStatus();
}

it("names the verb, resource, group and namespace as upstream's messages do", () => {
  const list = denial("GET", "/api/v1/namespaces/default/pods");
  assert.equal(
    list.message,
    'pods is forbidden: User "alice" cannot list resource "pods" in API group "" in the namespace "default"',
  );
  assert.deepEqual(list.details, { kind: "pods" });
  const get = denial("GET", "/api/v1/namespaces/default/pods/x");
  assert.equal(
    get.message,
    'pods "x" is forbidden: User "alice" cannot get resource "pods" in API group "" in the namespace "default"',
  );
  assert.deepEqual(get.details, { name: "x", kind: "pods" });
  assert.equal(
    denial("GET", "/api/v1/namespaces/default/pods?watch=true").message,
    'pods is forbidden: User "alice" cannot watch resource "pods" in API group "" in the namespace "default"',
  );
  assert.equal(
    denial("DELETE", "/apis/apps/v1/namespaces/ns1/deployments").message,
    'deployments.apps is forbidden: User "alice" cannot deletecollection resource "deployments" in API group "apps" in the namespace "ns1"',
  );
  const node = denial("PATCH", "/api/v1/nodes/n1");
  assert.equal(
    node.message,
    'nodes "n1" is forbidden: User "alice" cannot patch resource "nodes" in API group "" at the cluster scope',
  );
  const rbac = naming("cluster").group("rbac.authorization");
  const crbs = denial("GET", `/apis/${rbac}/v1/clusterrolebindings`);
  assert.equal(
    crbs.message,
    `clusterrolebindings.${rbac} is forbidden: User "alice" cannot list resource "clusterrolebindings" in API group "${rbac}" at the cluster scope`,
  );
  assert.deepEqual(crbs.details, { group: rbac, kind: "clusterrolebindings" });
  assert.equal(
    denial("POST", "/api/v1/namespaces/default/pods/x/exec").message,
    'pods "x" is forbidden: User "alice" cannot create resource "pods/exec" in API group "" in the namespace "default"',
  );
  assert.equal(
    denial("GET", "/api/v1/namespaces/kube-x").message,
    'namespaces "kube-x" is forbidden: User "alice" cannot get resource "namespaces" in API group "" in the namespace "kube-x"',
  );
});

it("non-resource paths: the lowercased method and the path", () => {
  const status = denial("GET", "/foo");
  assert.equal(status.message, 'forbidden: User "alice" cannot get path "/foo"');
  assert.deepEqual(status.details, {});
  assert.equal(denial("POST", "/apis").message, 'forbidden: User "alice" cannot post path "/apis"');
  assert.equal(
    denial("PUT", "/healthz/etcd").message,
    'forbidden: User "alice" cannot put path "/healthz/etcd"',
  );
});

it("appends the authorizer's reason after a colon", () => {
  assert.equal(
    denial("GET", "/api/v1/namespaces/default/secrets", "RBAC: no binding").message,
    'secrets is forbidden: User "alice" cannot list resource "secrets" in API group "" in the namespace "default": RBAC: no binding',
  );
});

it("quotes as Go does and keeps request data from reading as HTML", () => {
  const info = parseRequestInfo("GET", "/x", new URLSearchParams());
  const err = forbidden(
    requestAttributes({ ...alice, username: 'eve"<script>&\n' }, { ...info, path: "/<b>" }),
    "<kept>",
  );
  assert.equal(
    err.message,
    'forbidden: User "eve\\"&lt;script&gt;&amp;\\n" cannot get path "/&lt;b&gt;": <kept>',
  );
});
