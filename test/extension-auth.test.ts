// Delegated authentication for extension API servers, through the real gateway in both naming
// presets: the published `extension-apiserver-authentication` ConfigMap (its contents against
// the data dir's pki/, repaired after deletion and edits, rewritten from new settings after a
// restart), and the bootstrap roles that let an extension server read it
// (`extension-apiserver-authentication-reader`) and ask back with TokenReview and
// SubjectAccessReview (`system:auth-delegator`), with their denials.
import assert from "node:assert/strict";
import { X509Certificate } from "node:crypto";
import { readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { naming as namingPreset } from "../backends/naming/index.ts";
import { createAuthority } from "../gateway/pki/certificates.ts";
import { ApiClient } from "./support/api-client.ts";
import { type GatewayProcess, startGateway } from "./support/gateway-process.ts";
import { eventually } from "./support/watch.ts";

const CONFIG_MAP = "extension-apiserver-authentication";
const KEYS = [
  "client-ca-file",
  "requestheader-allowed-names",
  "requestheader-client-ca-file",
  "requestheader-extra-headers-prefix",
  "requestheader-group-headers",
  "requestheader-username-headers",
];

/** The DER of every certificate of a PEM bundle, as base64, in order. */
const ders = (pem: string | undefined) =>
  (pem?.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? []).map((b) =>
    new X509Certificate(b).raw.toString("base64"),
  );

for (const preset of ["cluster", "kubernetes"] as const) {
  describe(`extension server authentication, ${preset} naming`, () => {
    const naming = namingPreset(preset);
    const system = naming.systemNamespace;
    const rbac = `/apis/${naming.group("rbac.authorization")}/v1`;
    const authn = naming.group("authentication");
    const authz = naming.group("authorization");
    const cmPath = `/api/v1/namespaces/${system}/configmaps/${CONFIG_MAP}`;
    let gw: GatewayProcess;
    let api: ApiClient;
    let bearer: ApiClient;
    const tokens: Record<string, string> = {};

    const data = async () => {
      const reply = await api.call("GET", cmPath);
      return reply.status === 200 ? (reply.body.data as Record<string, string>) : undefined;
    };
    const pki = (file: string) => readFile(join(gw.dataDir, "pki", file), "utf8");
    const as = (who: string, method: string, path: string, body?: unknown) =>
      bearer.call(method, path, {
        headers: { authorization: `Bearer ${tokens[who]}` },
        ...(body === undefined ? {} : { body }),
      });
    const created = async (path: string, body: unknown) => {
      const reply = await api.call("POST", path, { body });
      assert.equal(reply.status, 201, reply.text);
      return reply.body;
    };
    const tokenReview = (token: string) => ({
      apiVersion: `${authn}/v1`,
      kind: "TokenReview",
      spec: { token },
    });
    const accessReview = {
      apiVersion: `${authz}/v1`,
      kind: "SubjectAccessReview",
      spec: { user: "someone", resourceAttributes: { verb: "get", resource: "pods", namespace: "default" } },
    };

    before(async () => {
      gw = await startGateway(preset === "kubernetes" ? ["--api-naming=kubernetes"] : []);
      api = new ApiClient(gw.kubeconfig);
      bearer = new ApiClient(gw.kubeconfig, { anonymous: true });
    });
    after(async () => {
      await api?.close();
      await bearer?.close();
      await gw?.stop();
      if (gw) await rm(gw.dataDir, { recursive: true, force: true });
    });

    it("publishes the gateway's authentication settings in the system namespace", async () => {
      await eventually(async () => (await data()) !== undefined, 10_000, "the config map");
      const published = (await data()) ?? {};
      assert.deepEqual(Object.keys(published).sort(), KEYS);
      assert.deepEqual(ders(published["client-ca-file"]), ders(await pki("ca.crt")));
      assert.deepEqual(
        ders(published["requestheader-client-ca-file"]),
        ders(await pki("front-proxy-ca.crt")),
      );
      assert.equal(published["requestheader-allowed-names"], '["front-proxy-client"]');
      assert.equal(published["requestheader-username-headers"], '["X-Remote-User"]');
      assert.equal(published["requestheader-group-headers"], '["X-Remote-Group"]');
      assert.equal(published["requestheader-extra-headers-prefix"], '["X-Remote-Extra-"]');
    });

    it("brings the config map back after a deletion and after an edit", async () => {
      const published = await data();
      assert.equal((await api.call("DELETE", cmPath)).status, 200);
      await eventually(
        async () => JSON.stringify(await data()) === JSON.stringify(published),
        10_000,
        "the config map recreated",
      );
      const edited = await api.call("PUT", cmPath, {
        body: {
          metadata: { name: CONFIG_MAP },
          data: { ...published, "requestheader-allowed-names": '["evil-proxy"]', extra: "x" },
        },
      });
      assert.equal(edited.status, 200, edited.text);
      await eventually(
        async () => JSON.stringify(await data()) === JSON.stringify(published),
        10_000,
        "the config map restored",
      );
    });

    it("keeps upstream's bootstrap roles for extension servers", async () => {
      const reader = await api.call("GET", `${rbac}/namespaces/${system}/roles/${CONFIG_MAP}-reader`);
      assert.equal(reader.status, 200, reader.text);
      assert.deepEqual(reader.body.rules, [
        {
          verbs: ["get", "list", "watch"],
          apiGroups: [""],
          resources: ["configmaps"],
          resourceNames: [CONFIG_MAP],
        },
      ]);
      const binding = await api.call(
        "GET",
        `${rbac}/namespaces/${system}/rolebindings/system::${CONFIG_MAP}-reader`,
      );
      assert.equal(binding.status, 200, binding.text);
      assert.deepEqual(binding.body.roleRef, {
        apiGroup: naming.group("rbac.authorization"),
        kind: "Role",
        name: `${CONFIG_MAP}-reader`,
      });
      assert.deepEqual(
        binding.body.subjects.map((s: { name: string }) => s.name),
        ["system:kube-controller-manager", "system:kube-scheduler"],
      );
      const delegator = await api.call("GET", `${rbac}/clusterroles/system:auth-delegator`);
      assert.equal(delegator.status, 200, delegator.text);
      assert.deepEqual(delegator.body.rules, [
        { verbs: ["create"], apiGroups: [authn], resources: ["tokenreviews"] },
        { verbs: ["create"], apiGroups: [authz], resources: ["subjectaccessreviews"] },
      ]);
    });

    it("lets only a service account bound to the reader role read the config map", async () => {
      await created("/api/v1/namespaces", { metadata: { name: "ext" } });
      for (const name of ["reader", "delegator", "bystander"]) {
        await created("/api/v1/namespaces/ext/serviceaccounts", { metadata: { name } });
        const request = await created(`/api/v1/namespaces/ext/serviceaccounts/${name}/token`, {
          apiVersion: `${authn}/v1`,
          kind: "TokenRequest",
          spec: {},
        });
        tokens[name] = request.status.token;
      }
      await created(`${rbac}/namespaces/${system}/rolebindings`, {
        metadata: { name: "ext-reader" },
        roleRef: { apiGroup: naming.group("rbac.authorization"), kind: "Role", name: `${CONFIG_MAP}-reader` },
        subjects: [{ kind: "ServiceAccount", name: "reader", namespace: "ext" }],
      });
      await created(`/api/v1/namespaces/${system}/configmaps`, { metadata: { name: "other" }, data: {} });
      await eventually(
        async () => (await as("reader", "GET", cmPath)).status === 200,
        10_000,
        "the reader's binding to take effect",
      );
      // The way an extension server's informer reads it: list and watch pinned by name.
      const pinned = `/api/v1/namespaces/${system}/configmaps?fieldSelector=metadata.name%3D${CONFIG_MAP}`;
      const listed = await as("reader", "GET", pinned);
      assert.equal(listed.status, 200, listed.text);
      assert.deepEqual(
        listed.body.items.map((i: { metadata: { name: string } }) => i.metadata.name),
        [CONFIG_MAP],
      );
      // Nothing else in the namespace, and nothing for the others.
      for (const [who, path] of [
        ["reader", `/api/v1/namespaces/${system}/configmaps/other`],
        ["reader", `/api/v1/namespaces/${system}/configmaps`],
        ["delegator", cmPath],
        ["bystander", cmPath],
        ["bystander", pinned],
      ] as const) {
        const denied = await as(who, "GET", path);
        assert.equal(denied.status, 403, `${who} ${path}: ${denied.text}`);
        assert.equal(denied.body.reason, "Forbidden");
      }
    });

    it("lets only a service account bound to system:auth-delegator create token and access reviews", async () => {
      await created(`${rbac}/clusterrolebindings`, {
        metadata: { name: "ext-auth-delegator" },
        roleRef: {
          apiGroup: naming.group("rbac.authorization"),
          kind: "ClusterRole",
          name: "system:auth-delegator",
        },
        subjects: [{ kind: "ServiceAccount", name: "delegator", namespace: "ext" }],
      });
      const tokenReviews = `/apis/${authn}/v1/tokenreviews`;
      const accessReviews = `/apis/${authz}/v1/subjectaccessreviews`;
      await eventually(
        async () =>
          (await as("delegator", "POST", tokenReviews, tokenReview(tokens.bystander ?? ""))).status === 201,
        10_000,
        "the delegator's binding to take effect",
      );
      const review = await as("delegator", "POST", tokenReviews, tokenReview(tokens.bystander ?? ""));
      assert.equal(review.body.status.authenticated, true);
      assert.equal(review.body.status.user.username, "system:serviceaccount:ext:bystander");
      const access = await as("delegator", "POST", accessReviews, accessReview);
      assert.equal(access.status, 201, access.text);
      assert.equal(access.body.status.allowed, false);
      for (const who of ["reader", "bystander"]) {
        for (const [path, body] of [
          [tokenReviews, tokenReview(tokens.delegator ?? "")],
          [accessReviews, accessReview],
        ] as const) {
          const denied = await as(who, "POST", path, body);
          assert.equal(denied.status, 403, `${who} ${path}: ${denied.text}`);
          assert.equal(denied.body.reason, "Forbidden");
        }
      }
    });

    it("publishes new settings after a restart, and only those", async () => {
      const extraCa = (await createAuthority("second-client-ca")).certPem;
      const bundle = join(gw.dataDir, "client-bundle.crt");
      await writeFile(bundle, `${await pki("ca.crt")}\n${extraCa}`);
      await gw.stop();
      await api.close();
      gw = await startGateway(
        [
          ...(preset === "kubernetes" ? ["--api-naming=kubernetes"] : []),
          `--client-ca-file=${bundle}`,
          "--requestheader-allowed-names=aggregator",
          "--requestheader-group-headers=X-Remote-Group,X-Groups",
          "--requestheader-extra-headers-prefix=X-Remote-Extra-,X-Extra-",
        ],
        { dataDir: gw.dataDir, port: gw.port },
      );
      api = new ApiClient(gw.kubeconfig);
      await eventually(
        async () => (await data())?.["requestheader-allowed-names"] === '["aggregator"]',
        10_000,
        "the new settings",
      );
      const published = (await data()) ?? {};
      assert.deepEqual(Object.keys(published).sort(), KEYS);
      assert.deepEqual(ders(published["client-ca-file"]), [...ders(await pki("ca.crt")), ...ders(extraCa)]);
      assert.deepEqual(
        ders(published["requestheader-client-ca-file"]),
        ders(await pki("front-proxy-ca.crt")),
      );
      assert.equal(published["requestheader-username-headers"], '["X-Remote-User"]');
      assert.equal(published["requestheader-group-headers"], '["X-Remote-Group","X-Groups"]');
      assert.equal(published["requestheader-extra-headers-prefix"], '["X-Remote-Extra-","X-Extra-"]');
    });
  });
}
