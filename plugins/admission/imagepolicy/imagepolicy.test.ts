import assert from "node:assert/strict";
import type { ServerResponse } from "node:http";
import { after, before, describe, test } from "node:test";
import { type AdmissionTest, startAdmissionTest } from "../../../gateway/admission/testing.ts";
import {
  type HttpsPeer,
  kubeconfigYaml,
  type PeerRequest,
  sendJson,
  startHttpsPeer,
  type TempDir,
  tempDir,
} from "../../client/testing/index.ts";
import { AdmissionError, type AdmissionPlugin, type JsonObject } from "../index.ts";
import { createImagePolicyWebhook, registration } from "./index.ts";

type Backend = (review: JsonObject, req: PeerRequest, res: ServerResponse) => void;

describe("ImagePolicyWebhook against a real TLS backend", () => {
  let t: AdmissionTest;
  let peer: HttpsPeer;
  let dir: TempDir;
  let backend: Backend = () => {};
  const plugins: AdmissionPlugin[] = [];
  let kubeconfig: string;

  before(async () => {
    t = await startAdmissionTest();
    peer = await startHttpsPeer((req, res) => backend(JSON.parse(req.body || "{}") as JsonObject, req, res));
    dir = tempDir("imagepolicy-");
    const client = await peer.clientCertificate("apiserver");
    kubeconfig = dir.write(
      "backend.yaml",
      kubeconfigYaml({
        server: `${peer.url}/review`,
        caPem: peer.serverCa.certPem,
        user: {
          "client-certificate-data": Buffer.from(client.certPem).toString("base64"),
          "client-key-data": Buffer.from(client.keyPem).toString("base64"),
        },
      }),
    );
  });
  after(async () => {
    for (const p of plugins) await p.close?.();
    await peer.close();
    dir.remove();
    await t.stop();
  });

  const answer =
    (allowed: boolean, reason = "", auditAnnotations?: Record<string, string>): Backend =>
    (review, _req, res) =>
      sendJson(res, 200, {
        apiVersion: review.apiVersion,
        kind: "ImageReview",
        status: { allowed, ...(reason ? { reason } : {}), ...(auditAnnotations ? { auditAnnotations } : {}) },
      });

  function plugin(extra: JsonObject = {}): AdmissionPlugin {
    const p = createImagePolicyWebhook(
      t.env({ configuration: { imagePolicy: { kubeConfigFile: kubeconfig, retryBackoff: 5, ...extra } } }),
      { callTimeoutMs: 300 },
    );
    plugins.push(p);
    return p;
  }

  const pod = (name: string, images: string[], annotations: Record<string, string> = {}): JsonObject => ({
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name, namespace: "default", annotations },
    spec: { containers: images.map((image, i) => ({ name: `c${i}`, image })) },
  });
  const admit = async (p: AdmissionPlugin, object: JsonObject) => {
    const a = t.attributes({ operation: "CREATE", resource: "pods", object });
    await p.admit?.(a);
    return a;
  };
  const reviews = () =>
    peer.requests.filter((r) => r.url === "/review").map((r) => JSON.parse(r.body) as JsonObject);

  test("an allowed review admits; the review lists the images, namespace and forwarded annotations", async () => {
    backend = answer(true, "", { checked: "yes" });
    const p = plugin();
    const group = t.naming.group("image-policy");
    const a = await admit(
      p,
      pod("ok", ["nginx:1", "busybox:2"], { [`mycluster.${group}/ticket`]: "123", unrelated: "x" }),
    );
    const review = reviews().at(-1) as JsonObject;
    assert.equal(review.apiVersion, `${group}/v1alpha1`);
    assert.equal(review.kind, "ImageReview");
    assert.deepEqual(review.spec, {
      containers: [{ image: "nginx:1" }, { image: "busybox:2" }],
      annotations: { [`mycluster.${group}/ticket`]: "123" },
      namespace: "default",
    });
    assert.equal(a.annotations[`imagepolicywebhook.${group}/checked`], "yes");
    assert.equal(
      peer.requests.at(-1)?.clientCN,
      "apiserver",
      "the kubeconfig's client certificate is presented",
    );
  });

  test("a denial is a 403 with the backend's reason", async () => {
    backend = answer(false, "unsigned image");
    await assert.rejects(admit(plugin(), pod("bad", ["evil:latest"])), (err: unknown) => {
      assert.ok(err instanceof AdmissionError);
      assert.equal(err.code, 403);
      assert.equal(
        err.message,
        'pods "bad" is forbidden: image policy webhook backend denied one or more images: unsigned image',
      );
      return true;
    });
    backend = answer(false);
    await assert.rejects(
      admit(plugin(), pod("bad2", ["evil:2"])),
      /one or more images rejected by webhook backend/,
    );
  });

  test("answers are cached for allowTTL and denyTTL; -1 turns a cache off", async () => {
    backend = answer(true);
    const p = plugin({ allowTTL: 60 });
    const before = reviews().length;
    await admit(p, pod("c1", ["cached:1"]));
    await admit(p, pod("c2", ["cached:1"]));
    assert.equal(
      reviews().length - before,
      1,
      "the second pod with the same images is answered from the cache",
    );
    const uncached = plugin({ allowTTL: -1 });
    await admit(uncached, pod("c3", ["cached:2"]));
    await admit(uncached, pod("c4", ["cached:2"]));
    assert.equal(reviews().length - before, 3);
  });

  const failures: [string, Backend][] = [
    ["an HTTP 500", (_r, _q, res) => sendJson(res, 500, { message: "down" })],
    [
      "garbage",
      (_r, _q, res) => {
        res.writeHead(200, { "content-type": "application/json" });
        res.end("not json at all");
      },
    ],
    ["a reply of another kind", (_r, _q, res) => sendJson(res, 200, { kind: "Status", status: {} })],
    ["no reply within the timeout", () => {}],
  ];
  for (const [what, failing] of failures) {
    test(`a backend answering ${what} is retried, then defaultAllow decides`, async () => {
      backend = failing;
      const before = peer.requests.length;
      await assert.rejects(admit(plugin({ defaultAllow: false }), pod("f1", ["x:1"])), (err: unknown) => {
        assert.ok(err instanceof AdmissionError);
        assert.equal(err.code, 403);
        return true;
      });
      assert.equal(peer.requests.length - before, 5, "five attempts");
      const a = await admit(plugin({ defaultAllow: true }), pod("f2", ["x:1"]));
      const group = t.naming.group("image-policy");
      assert.equal(a.annotations[`imagepolicywebhook.${group}/failed-open`], "true");
      const annotations = ((a.object as JsonObject).metadata as JsonObject).annotations as Record<
        string,
        string
      >;
      assert.equal(annotations[`alpha.${group}/failed-open`], "true");
    });
  }

  test("only pods (and their ephemeral containers) are reviewed", async () => {
    backend = answer(false, "no");
    const p = plugin();
    await p.admit?.(
      t.attributes({
        operation: "CREATE",
        resource: "configmaps",
        object: { metadata: { name: "c", namespace: "default" } },
      }),
    );
    await p.admit?.(
      t.attributes({
        operation: "UPDATE",
        resource: "pods",
        subresource: "status",
        object: pod("s", ["a"]),
        oldObject: pod("s", ["a"]),
      }),
    );
    await assert.rejects(
      p.admit?.(
        t.attributes({
          operation: "UPDATE",
          resource: "pods",
          subresource: "ephemeralcontainers",
          object: pod("e", ["a"]),
          oldObject: pod("e", ["a"]),
        }),
      ) as Promise<void>,
      /denied one or more images: no/,
    );
  });

  test("bad configurations fail at start: http backends, out-of-range durations, missing file", async () => {
    const plain = dir.write("plain.yaml", kubeconfigYaml({ server: "http://127.0.0.1:1/review" }));
    const cases: [unknown, RegExp][] = [
      [undefined, /needs a configuration with an imagePolicy object/],
      [{ imagePolicy: {} }, /kubeConfigFile is required/],
      [
        { imagePolicy: { kubeConfigFile: plain } },
        /must use TLS \(https\), got http:\/\/127\.0\.0\.1:1\/review/,
      ],
      [
        { imagePolicy: { kubeConfigFile: kubeconfig, allowTTL: 1 } },
        /allow cache: valid value is between 1s and 30m0s, got 1s/,
      ],
      [
        { imagePolicy: { kubeConfigFile: kubeconfig, denyTTL: 1801 } },
        /deny cache: valid value is between 1s and 30m0s, got 30m1s/,
      ],
      [
        { imagePolicy: { kubeConfigFile: kubeconfig, retryBackoff: 300001 } },
        /backoff: valid value is between/,
      ],
      [{ imagePolicy: { kubeConfigFile: `${dir.path}/missing.yaml` } }, /ImagePolicyWebhook: /],
    ];
    for (const [configuration, pattern] of cases)
      await assert.rejects(
        async () => registration.factory(t.env({ configuration })),
        pattern,
        String(pattern),
      );
  });
});
