import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseRequestInfo, type RequestInfo } from "./request-info.ts";

/** Split a request target the way the server hands it over: raw path, parsed query. */
function classify(method: string, target: string): RequestInfo {
  const q = target.indexOf("?");
  const path = q >= 0 ? target.slice(0, q) : target;
  const query = new URLSearchParams(q >= 0 ? target.slice(q + 1) : "");
  return parseRequestInfo(method, path, query);
}

// method, target, verb, apiPrefix, apiGroup, apiVersion, namespace, resource, subresource, name, parts
type ResourceCase = [
  string,
  string,
  string,
  string,
  string,
  string,
  string,
  string,
  string,
  string,
  readonly string[],
];

// biome-ignore format: one case per line reads as a table
const resourceCases: readonly ResourceCase[] = [
  // every verb, core group, namespaced
  ["GET", "/api/v1/namespaces/default/pods", "list", "api", "", "v1", "default", "pods", "", "", ["pods"]],
  ["GET", "/api/v1/namespaces/default/pods/web-0", "get", "api", "", "v1", "default", "pods", "", "web-0", ["pods", "web-0"]],
  ["HEAD", "/api/v1/namespaces/default/pods/web-0", "get", "api", "", "v1", "default", "pods", "", "web-0", ["pods", "web-0"]],
  ["POST", "/api/v1/namespaces/default/pods", "create", "api", "", "v1", "default", "pods", "", "", ["pods"]],
  ["PUT", "/api/v1/namespaces/default/pods/web-0", "update", "api", "", "v1", "default", "pods", "", "web-0", ["pods", "web-0"]],
  ["PATCH", "/api/v1/namespaces/default/pods/web-0", "patch", "api", "", "v1", "default", "pods", "", "web-0", ["pods", "web-0"]],
  ["DELETE", "/api/v1/namespaces/default/pods/web-0", "delete", "api", "", "v1", "default", "pods", "", "web-0", ["pods", "web-0"]],
  ["DELETE", "/api/v1/namespaces/default/pods", "deletecollection", "api", "", "v1", "default", "pods", "", "", ["pods"]],

  // core group, cluster-scoped and all-namespaces
  ["GET", "/api/v1/pods", "list", "api", "", "v1", "", "pods", "", "", ["pods"]],
  ["HEAD", "/api/v1/pods", "list", "api", "", "v1", "", "pods", "", "", ["pods"]],
  ["GET", "/api/v1/nodes/node-1", "get", "api", "", "v1", "", "nodes", "", "node-1", ["nodes", "node-1"]],
  ["DELETE", "/api/v1/nodes", "deletecollection", "api", "", "v1", "", "nodes", "", "", ["nodes"]],

  // named groups
  ["GET", "/apis/apps/v1/deployments", "list", "apis", "apps", "v1", "", "deployments", "", "", ["deployments"]],
  ["GET", "/apis/apps/v1/namespaces/prod/deployments/api", "get", "apis", "apps", "v1", "prod", "deployments", "", "api", ["deployments", "api"]],
  ["POST", "/apis/apps/v1/namespaces/prod/deployments", "create", "apis", "apps", "v1", "prod", "deployments", "", "", ["deployments"]],
  ["DELETE", "/apis/batch/v1/namespaces/ci/jobs", "deletecollection", "apis", "batch", "v1", "ci", "jobs", "", "", ["jobs"]],
  ["GET", "/apis/rbac.authorization.k8s.io/v1/clusterroles/admin", "get", "apis", "rbac.authorization.k8s.io", "v1", "", "clusterroles", "", "admin", ["clusterroles", "admin"]],
  ["GET", "/apis/apps/v1/namespaces", "list", "apis", "apps", "v1", "", "namespaces", "", "", ["namespaces"]],

  // subresources
  ["PUT", "/apis/apps/v1/namespaces/prod/deployments/api/scale", "update", "apis", "apps", "v1", "prod", "deployments", "scale", "api", ["deployments", "api", "scale"]],
  ["GET", "/apis/apps/v1/namespaces/prod/deployments/api/scale", "get", "apis", "apps", "v1", "prod", "deployments", "scale", "api", ["deployments", "api", "scale"]],
  ["PATCH", "/apis/apps/v1/namespaces/prod/deployments/api/status", "patch", "apis", "apps", "v1", "prod", "deployments", "status", "api", ["deployments", "api", "status"]],
  ["PUT", "/apis/certificates.k8s.io/v1/certificatesigningrequests/csr-1/approval", "update", "apis", "certificates.k8s.io", "v1", "", "certificatesigningrequests", "approval", "csr-1", ["certificatesigningrequests", "csr-1", "approval"]],
  ["GET", "/api/v1/namespaces/default/pods/web-0/log", "get", "api", "", "v1", "default", "pods", "log", "web-0", ["pods", "web-0", "log"]],
  ["POST", "/api/v1/namespaces/default/pods/web-0/exec?command=ls&stdout=true", "create", "api", "", "v1", "default", "pods", "exec", "web-0", ["pods", "web-0", "exec"]],
  ["GET", "/api/v1/namespaces/default/pods/web-0/exec?command=ls", "get", "api", "", "v1", "default", "pods", "exec", "web-0", ["pods", "web-0", "exec"]],
  ["POST", "/api/v1/namespaces/default/pods/web-0/eviction", "create", "api", "", "v1", "default", "pods", "eviction", "web-0", ["pods", "web-0", "eviction"]],
  ["POST", "/api/v1/namespaces/default/pods/web-0/binding", "create", "api", "", "v1", "default", "pods", "binding", "web-0", ["pods", "web-0", "binding"]],
  ["POST", "/api/v1/namespaces/default/bindings", "create", "api", "", "v1", "default", "bindings", "", "", ["bindings"]],
  ["POST", "/api/v1/namespaces/default/serviceaccounts/builder/token", "create", "api", "", "v1", "default", "serviceaccounts", "token", "builder", ["serviceaccounts", "builder", "token"]],
  ["GET", "/api/v1/namespaces/default/pods/web-0/proxy", "get", "api", "", "v1", "default", "pods", "proxy", "web-0", ["pods", "web-0", "proxy"]],
  ["PUT", "/api/v1/namespaces/default/services/web:80/proxy/some/path", "update", "api", "", "v1", "default", "services", "proxy", "web:80", ["services", "web:80", "proxy", "some", "path"]],
  ["GET", "/api/v1/nodes/node-1/proxy/metrics", "get", "api", "", "v1", "", "nodes", "proxy", "node-1", ["nodes", "node-1", "proxy", "metrics"]],

  // the namespaces resource itself: namespace is the object's own name
  ["GET", "/api/v1/namespaces", "list", "api", "", "v1", "", "namespaces", "", "", ["namespaces"]],
  ["POST", "/api/v1/namespaces", "create", "api", "", "v1", "", "namespaces", "", "", ["namespaces"]],
  ["DELETE", "/api/v1/namespaces", "deletecollection", "api", "", "v1", "", "namespaces", "", "", ["namespaces"]],
  ["GET", "/api/v1/namespaces/kube-system", "get", "api", "", "v1", "kube-system", "namespaces", "", "kube-system", ["namespaces", "kube-system"]],
  ["DELETE", "/api/v1/namespaces/kube-system", "delete", "api", "", "v1", "kube-system", "namespaces", "", "kube-system", ["namespaces", "kube-system"]],
  ["GET", "/api/v1/namespaces/team-a/", "get", "api", "", "v1", "team-a", "namespaces", "", "team-a", ["namespaces", "team-a"]],
  ["PUT", "/api/v1/namespaces/team-a/finalize", "update", "api", "", "v1", "team-a", "namespaces", "finalize", "team-a", ["namespaces", "team-a", "finalize"]],
  ["GET", "/api/v1/namespaces/team-a/status", "get", "api", "", "v1", "team-a", "namespaces", "status", "team-a", ["namespaces", "team-a", "status"]],
  ["PATCH", "/api/v1/namespaces/team-a/status", "patch", "api", "", "v1", "team-a", "namespaces", "status", "team-a", ["namespaces", "team-a", "status"]],
  ["GET", "/api/v1/namespaces/team-a/status/extra", "get", "api", "", "v1", "team-a", "namespaces", "status", "team-a", ["namespaces", "team-a", "status", "extra"]],
  ["GET", "/api/v1/namespaces/status", "get", "api", "", "v1", "status", "namespaces", "", "status", ["namespaces", "status"]],
  ["GET", "/api/v1/namespaces?watch=true", "watch", "api", "", "v1", "", "namespaces", "", "", ["namespaces"]],

  // watch through the query
  ["GET", "/api/v1/pods?watch=true", "watch", "api", "", "v1", "", "pods", "", "", ["pods"]],
  ["GET", "/api/v1/namespaces/default/pods?watch=1", "watch", "api", "", "v1", "default", "pods", "", "", ["pods"]],
  ["GET", "/api/v1/pods?watch", "watch", "api", "", "v1", "", "pods", "", "", ["pods"]],
  ["GET", "/api/v1/pods?watch=", "watch", "api", "", "v1", "", "pods", "", "", ["pods"]],
  ["GET", "/api/v1/pods?watch=yes", "watch", "api", "", "v1", "", "pods", "", "", ["pods"]],
  ["GET", "/api/v1/pods?watch=false", "list", "api", "", "v1", "", "pods", "", "", ["pods"]],
  ["GET", "/api/v1/pods?watch=0", "list", "api", "", "v1", "", "pods", "", "", ["pods"]],
  ["GET", "/api/v1/pods?watch=FALSE", "list", "api", "", "v1", "", "pods", "", "", ["pods"]],
  ["GET", "/api/v1/pods?watch=false&watch=true", "list", "api", "", "v1", "", "pods", "", "", ["pods"]],
  ["HEAD", "/api/v1/pods?watch=1", "watch", "api", "", "v1", "", "pods", "", "", ["pods"]],
  ["GET", "/apis/apps/v1/namespaces/prod/deployments?watch=1&resourceVersion=10&allowWatchBookmarks=true", "watch", "apis", "apps", "v1", "prod", "deployments", "", "", ["deployments"]],
  // a named GET stays a get whatever the query says
  ["GET", "/api/v1/namespaces/default/pods/web-0?watch=true", "get", "api", "", "v1", "default", "pods", "", "web-0", ["pods", "web-0"]],

  // legacy /watch/ segment: verb from the path, whatever the method
  ["GET", "/api/v1/watch/pods", "watch", "api", "", "v1", "", "pods", "", "", ["pods"]],
  ["GET", "/api/v1/watch/namespaces/default/pods", "watch", "api", "", "v1", "default", "pods", "", "", ["pods"]],
  ["GET", "/api/v1/watch/namespaces/default/pods/web-0", "watch", "api", "", "v1", "default", "pods", "", "web-0", ["pods", "web-0"]],
  ["GET", "/api/v1/watch/pods/web-0", "watch", "api", "", "v1", "", "pods", "", "web-0", ["pods", "web-0"]],
  ["GET", "/api/v1/watch/namespaces/default/pods/web-0/status", "watch", "api", "", "v1", "default", "pods", "status", "web-0", ["pods", "web-0", "status"]],
  ["GET", "/api/v1/watch/namespaces/team-a", "watch", "api", "", "v1", "team-a", "namespaces", "", "team-a", ["namespaces", "team-a"]],
  ["GET", "/apis/apps/v1/watch/namespaces/prod/deployments", "watch", "apis", "apps", "v1", "prod", "deployments", "", "", ["deployments"]],
  ["POST", "/api/v1/watch/pods", "watch", "api", "", "v1", "", "pods", "", "", ["pods"]],
  // no field-selector name on the /watch/ form
  ["GET", "/api/v1/watch/pods?fieldSelector=metadata.name%3Dweb-0", "watch", "api", "", "v1", "", "pods", "", "", ["pods"]],

  // legacy /proxy/ segment: verb proxy, nothing after the name is a subresource
  ["GET", "/api/v1/proxy/nodes/node-1", "proxy", "api", "", "v1", "", "nodes", "", "node-1", ["nodes", "node-1"]],
  ["POST", "/api/v1/proxy/namespaces/default/services/web/api/items", "proxy", "api", "", "v1", "default", "services", "", "web", ["services", "web", "api", "items"]],
  ["DELETE", "/api/v1/proxy/namespaces/default/pods", "proxy", "api", "", "v1", "default", "pods", "", "", ["pods"]],

  // fieldSelector pinning metadata.name on list and watch
  ["GET", "/api/v1/pods?fieldSelector=metadata.name%3Dweb-0", "list", "api", "", "v1", "", "pods", "", "web-0", ["pods"]],
  ["GET", "/api/v1/namespaces/default/pods?watch=1&fieldSelector=metadata.name=web-0", "watch", "api", "", "v1", "default", "pods", "", "web-0", ["pods"]],
  ["GET", "/api/v1/pods?fieldSelector=metadata.name%3D%3Dweb-0", "list", "api", "", "v1", "", "pods", "", "web-0", ["pods"]],
  ["GET", "/api/v1/pods?fieldSelector=metadata.name!%3Dweb-0", "list", "api", "", "v1", "", "pods", "", "", ["pods"]],
  ["GET", "/api/v1/pods?fieldSelector=status.phase%3DRunning,metadata.name%3Dweb-0", "list", "api", "", "v1", "", "pods", "", "web-0", ["pods"]],
  ["GET", "/api/v1/namespaces?fieldSelector=metadata.name%3Dteam-a", "list", "api", "", "v1", "", "namespaces", "", "team-a", ["namespaces"]],
  ["GET", "/api/v1/pods?fieldSelector=metadata.namespace%3Ddefault", "list", "api", "", "v1", "", "pods", "", "", ["pods"]],
  ["GET", "/api/v1/pods?fieldSelector=%20metadata.name%3Dweb-0", "list", "api", "", "v1", "", "pods", "", "", ["pods"]],
  // terms are taken in sorted order: "metadata.name=a" sorts before "metadata.name=b"
  ["GET", "/api/v1/pods?fieldSelector=metadata.name%3Db,metadata.name%3Da", "list", "api", "", "v1", "", "pods", "", "a", ["pods"]],
  // an escaped comma is part of the value
  ["GET", "/api/v1/pods?fieldSelector=metadata.name%3Da%5C,b", "list", "api", "", "v1", "", "pods", "", "a,b", ["pods"]],
  // values that cannot be a path segment are not taken
  ["GET", "/api/v1/pods?fieldSelector=metadata.name%3Da%25b", "list", "api", "", "v1", "", "pods", "", "", ["pods"]],
  ["GET", "/api/v1/pods?fieldSelector=metadata.name%3D..", "list", "api", "", "v1", "", "pods", "", "", ["pods"]],
  // any decode failure drops the options: no name, watch only from the raw parameter
  ["GET", "/api/v1/pods?fieldSelector=metadata.name%3Dweb-0,bogus", "list", "api", "", "v1", "", "pods", "", "", ["pods"]],
  ["GET", "/api/v1/pods?fieldSelector=metadata.name%3Dweb-0,bogus&watch=true", "watch", "api", "", "v1", "", "pods", "", "", ["pods"]],
  ["GET", "/api/v1/pods?fieldSelector=metadata.name%3Dweb-0,bogus&watch=false", "list", "api", "", "v1", "", "pods", "", "", ["pods"]],
  ["GET", "/api/v1/pods?fieldSelector=metadata.name%3Dweb%5Cx", "list", "api", "", "v1", "", "pods", "", "", ["pods"]],
  ["GET", "/api/v1/pods?fieldSelector=metadata.name%3Dweb-0&labelSelector=a%20b", "list", "api", "", "v1", "", "pods", "", "", ["pods"]],
  ["GET", "/api/v1/pods?fieldSelector=metadata.name%3Dweb-0&labelSelector=app%3Dweb", "list", "api", "", "v1", "", "pods", "", "web-0", ["pods"]],
  ["GET", "/api/v1/pods?fieldSelector=metadata.name%3Dweb-0&limit=abc", "list", "api", "", "v1", "", "pods", "", "", ["pods"]],
  ["GET", "/api/v1/pods?fieldSelector=metadata.name%3Dweb-0&limit=500", "list", "api", "", "v1", "", "pods", "", "web-0", ["pods"]],
  ["GET", "/api/v1/pods?fieldSelector=metadata.name%3Dweb-0&limit=", "list", "api", "", "v1", "", "pods", "", "", ["pods"]],
  ["GET", "/api/v1/pods?fieldSelector=metadata.name%3Dweb-0&timeoutSeconds=1.5&watch=1", "watch", "api", "", "v1", "", "pods", "", "", ["pods"]],
  ["GET", "/api/v1/pods?fieldSelector=metadata.name%3Dweb-0&timeoutSeconds=-30&watch=1", "watch", "api", "", "v1", "", "pods", "", "web-0", ["pods"]],
  // only GETs without a name look at the selector
  ["DELETE", "/api/v1/namespaces/default/pods?fieldSelector=metadata.name%3Dweb-0", "deletecollection", "api", "", "v1", "default", "pods", "", "", ["pods"]],
  ["GET", "/api/v1/namespaces/default/pods/web-0?fieldSelector=metadata.name%3Dother", "get", "api", "", "v1", "default", "pods", "", "web-0", ["pods", "web-0"]],

  // methods without a service verb
  ["OPTIONS", "/api/v1/pods", "", "api", "", "v1", "", "pods", "", "", ["pods"]],
  ["OPTIONS", "/api/v1/namespaces/default/pods/web-0", "", "api", "", "v1", "default", "pods", "", "web-0", ["pods", "web-0"]],
  ["get", "/api/v1/pods", "", "api", "", "v1", "", "pods", "", "", ["pods"]],

  // path shapes: slashes, escapes
  ["GET", "/api/v1/pods/", "list", "api", "", "v1", "", "pods", "", "", ["pods"]],
  ["GET", "//api/v1/pods//", "list", "api", "", "v1", "", "pods", "", "", ["pods"]],
  ["GET", "/api/v1//pods", "get", "api", "", "v1", "", "", "", "pods", ["", "pods"]],
  ["GET", "/api/v1/namespaces/default/pods//status", "list", "api", "", "v1", "default", "pods", "status", "", ["pods", "", "status"]],
  ["GET", "/api/v1/namespaces/default/configmaps/caf%C3%A9", "get", "api", "", "v1", "default", "configmaps", "", "café", ["configmaps", "café"]],
  ["GET", "/api/v1/namespaces/my%20ns/pods", "list", "api", "", "v1", "my ns", "pods", "", "", ["pods"]],
  ["GET", "/api/v1/namespaces/default/pods/a%2Fb", "get", "api", "", "v1", "default", "pods", "b", "a", ["pods", "a", "b"]],
  ["GET", "/api/v1/namespaces/default/pods/a+b", "get", "api", "", "v1", "default", "pods", "", "a+b", ["pods", "a+b"]],
];

// method, target, verb, path, apiPrefix
type NonResourceCase = [string, string, string, string, string];

// biome-ignore format: one case per line reads as a table
const nonResourceCases: readonly NonResourceCase[] = [
  // discovery
  ["GET", "/api", "get", "/api", ""],
  ["GET", "/api/", "get", "/api/", ""],
  ["GET", "/api/v1", "get", "/api/v1", ""],
  ["GET", "/api/v1/", "get", "/api/v1/", ""],
  ["GET", "/apis", "get", "/apis", ""],
  ["GET", "/apis/apps", "get", "/apis/apps", ""],
  ["GET", "/apis/apps/v1", "get", "/apis/apps/v1", "apis"],
  ["GET", "/apis/apps/v1/", "get", "/apis/apps/v1/", "apis"],
  ["HEAD", "/apis/apps/v1", "head", "/apis/apps/v1", "apis"],
  // a group path missing its group
  ["GET", "/apis/v1/pods", "get", "/apis/v1/pods", "apis"],
  // other endpoints
  ["GET", "/", "get", "/", ""],
  ["GET", "", "get", "", ""],
  ["GET", "/healthz", "get", "/healthz", ""],
  ["GET", "/livez/etcd", "get", "/livez/etcd", ""],
  ["GET", "/readyz?verbose&exclude=etcd", "get", "/readyz", ""],
  ["GET", "/version", "get", "/version", ""],
  ["GET", "/version/", "get", "/version/", ""],
  ["GET", "/openapi/v2", "get", "/openapi/v2", ""],
  ["GET", "/openapi/v3/apis/apps/v1", "get", "/openapi/v3/apis/apps/v1", ""],
  ["GET", "/metrics", "get", "/metrics", ""],
  ["GET", "/logs/kube-apiserver.log", "get", "/logs/kube-apiserver.log", ""],
  ["GET", "/API/v1/pods", "get", "/API/v1/pods", ""],
  ["GET", "/apix/apps/v1/deployments", "get", "/apix/apps/v1/deployments", ""],
  // the verb is the lowercased method, whatever it is
  ["POST", "/healthz", "post", "/healthz", ""],
  ["PUT", "/version", "put", "/version", ""],
  ["PATCH", "/metrics", "patch", "/metrics", ""],
  ["DELETE", "/", "delete", "/", ""],
  ["HEAD", "/healthz", "head", "/healthz", ""],
  ["OPTIONS", "/openapi/v2", "options", "/openapi/v2", ""],
  ["POST", "/api", "post", "/api", ""],
];

describe("parseRequestInfo: resource requests", () => {
  for (const [
    method,
    target,
    verb,
    apiPrefix,
    apiGroup,
    apiVersion,
    namespace,
    resource,
    subresource,
    name,
    parts,
  ] of resourceCases) {
    it(`${method} ${target}`, () => {
      const info = classify(method, target);
      const q = target.indexOf("?");
      const rawPath = q >= 0 ? target.slice(0, q) : target;
      assert.deepEqual(
        { ...info, parts: [...info.parts] },
        {
          isResourceRequest: true,
          path: decodeURIComponent(rawPath),
          verb,
          apiPrefix,
          apiGroup,
          apiVersion,
          namespace,
          // No case in the table nests the namespaces resource inside a namespace.
          inNamespace: namespace !== "" && resource !== "namespaces",
          resource,
          subresource,
          name,
          parts: [...parts],
        },
      );
    });
  }
});

describe("parseRequestInfo: non-resource requests", () => {
  for (const [method, target, verb, path, apiPrefix] of nonResourceCases) {
    it(`${method} ${target === "" ? '""' : target}`, () => {
      assert.deepEqual(
        { ...classify(method, target) },
        {
          isResourceRequest: false,
          path,
          verb,
          apiPrefix,
          apiGroup: "",
          apiVersion: "",
          namespace: "",
          inNamespace: false,
          resource: "",
          subresource: "",
          name: "",
          parts: [],
        },
      );
    });
  }
});

describe("parseRequestInfo: details", () => {
  it("reports a special verb with nothing after it as a parse error (upstream answers 500)", () => {
    const info = classify("GET", "/api/v1/watch");
    assert.equal(info.isResourceRequest, true);
    assert.equal(info.verb, "get");
    assert.equal(info.apiPrefix, "api");
    assert.equal(info.apiVersion, "v1");
    assert.equal(info.resource, "");
    assert.deepEqual([...info.parts], []);
    assert.equal(info.parseError, "unable to determine kind and namespace from url, /api/v1/watch");

    const grouped = classify("POST", "/apis/apps/v1/proxy/?x=1");
    assert.equal(grouped.isResourceRequest, true);
    assert.equal(grouped.verb, "post");
    assert.equal(grouped.apiGroup, "apps");
    assert.equal(
      grouped.parseError,
      "unable to determine kind and namespace from url, /apis/apps/v1/proxy/?x=1",
    );
  });

  it("tells a cluster-scoped resource inside a namespace from the namespace itself", () => {
    // Same namespace, resource and name: only inNamespace says the first is no Namespace path.
    const nested = classify("DELETE", "/api/v1/namespaces/a/namespaces/a");
    const own = classify("DELETE", "/api/v1/namespaces/a");
    for (const info of [nested, own]) {
      assert.equal(info.namespace, "a");
      assert.equal(info.resource, "namespaces");
      assert.equal(info.name, "a");
    }
    assert.equal(nested.inNamespace, true);
    assert.equal(own.inNamespace, false);
    assert.equal(classify("GET", "/api/v1/namespaces/a/namespaces").inNamespace, true);
    assert.equal(classify("PUT", "/api/v1/namespaces/a/finalize").inNamespace, false);
    assert.equal(classify("GET", "/api/v1/namespaces/a/nodes/n/status").inNamespace, true);
    assert.equal(classify("GET", "/api/v1/watch/namespaces/a/namespaces/b").inNamespace, true);
  });

  it("takes the name from the first metadata.name term in byte order, as upstream", () => {
    // Upstream sorts the selector's terms and asks the first that pins the field.
    const pinned = (q: string) => classify("GET", `/api/v1/namespaces/x/secrets?fieldSelector=${q}`).name;
    assert.equal(pinned(encodeURIComponent("metadata.name=b,metadata.name=a")), "a");
    assert.equal(pinned(encodeURIComponent("metadata.name=a,metadata.name==b")), "b");
    assert.equal(pinned(encodeURIComponent("metadata.name!=a,metadata.name=b")), "b");
  });

  it("sets no parseError on well-formed requests", () => {
    assert.equal("parseError" in classify("GET", "/api/v1/pods"), false);
    assert.equal("parseError" in classify("GET", "/healthz"), false);
  });

  it("ignores a query left on the path argument", () => {
    const info = parseRequestInfo("GET", "/api/v1/pods?watch=1", new URLSearchParams());
    assert.equal(info.path, "/api/v1/pods");
    assert.equal(info.verb, "list");
  });

  it("classifies a path with a malformed escape undecoded", () => {
    const info = classify("GET", "/api/v1/namespaces/default/pods/a%zz");
    assert.equal(info.path, "/api/v1/namespaces/default/pods/a%zz");
    assert.equal(info.name, "a%zz");
    assert.equal(info.verb, "get");
  });

  it("treats watch=falſe (long s) as false, as Go's case folding does", () => {
    assert.equal(classify("GET", "/api/v1/pods?watch=fal%C5%BFe").verb, "list");
  });

  it("rejects out-of-range integers in limit", () => {
    const url = "/api/v1/pods?fieldSelector=metadata.name%3Dx&limit=";
    assert.equal(classify("GET", `${url}9223372036854775807`).name, "x");
    assert.equal(classify("GET", `${url}9223372036854775808`).name, "");
    assert.equal(classify("GET", `${url}-9223372036854775808`).name, "x");
  });

  it("returns frozen parts", () => {
    assert.equal(Object.isFrozen(classify("GET", "/api/v1/pods").parts), true);
    assert.equal(Object.isFrozen(classify("GET", "/healthz").parts), true);
  });
});
