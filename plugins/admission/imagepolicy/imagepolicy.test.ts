import assert from "node:assert/strict";
import type { ServerResponse } from "node:http";
import { createServer } from "node:net";
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

const answer =
  (allowed: boolean, reason = "", auditAnnotations?: Record<string, string>): Backend =>
  (review, _req, res) =>
    sendJson(res, 200, {
      apiVersion: review.apiVersion,
      kind: "ImageReview",
      status: { allowed, ...(reason ? { reason } : {}), ...(auditAnnotations ? { auditAnnotations } : {}) },
    });

const pod = (
  name: string,
  images: string[],
  annotations: Record<string, string> = {},
  extra: JsonObject = {},
): JsonObject => ({
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name, namespace: "default", annotations },
  spec: { containers: images.map((image, i) => ({ name: `c${i}`, image })), ...extra },
});

const annotationsOf = (o: JsonObject | undefined) =>
  (((o?.metadata ?? {}) as JsonObject).annotations ?? {}) as Record<string, string>;

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

function isForbidden(message: string | RegExp) {
  return (err: unknown) => {
    assert.ok(err instanceof AdmissionError, String(err));
    assert.equal(err.code, 403);
    if (typeof message === "string") assert.equal(err.message, message);
    else assert.match(err.message, message);
    return true;
  };
}

describe("ImagePolicyWebhook against a real TLS backend", () => {
  let t: AdmissionTest;
  let peer: HttpsPeer;
  let dir: TempDir;
  let backend: Backend = () => {};
  const plugins: AdmissionPlugin[] = [];
  let kubeconfig: string;

  before(async () => {
    t = await startAdmissionTest();
    peer = await startHttpsPeer((req, res) => {
      let review: JsonObject = {};
      try {
        review = JSON.parse(req.body) as JsonObject;
      } catch {}
      backend(review, req, res);
    });
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

  function plugin(extra: JsonObject = {}, file = kubeconfig, callTimeoutMs = 2_000): AdmissionPlugin {
    const p = createImagePolicyWebhook(
      t.env({ configuration: { imagePolicy: { kubeConfigFile: file, retryBackoff: 5, ...extra } } }),
      { callTimeoutMs },
    );
    plugins.push(p);
    return p;
  }
  const validate = async (
    p: AdmissionPlugin,
    object: JsonObject,
    operation: "CREATE" | "UPDATE" = "CREATE",
  ) => {
    const a = t.attributes({
      operation,
      resource: "pods",
      object,
      ...(operation === "UPDATE" ? { oldObject: object } : {}),
    });
    await p.validate?.(a);
    return a;
  };
  const reviews = () =>
    peer.requests.filter((r) => r.url === "/review").map((r) => JSON.parse(r.body) as JsonObject);
  const calls = () => peer.requests.length;

  test("an allowed pod: the review lists containers then init containers, namespace and forwarded annotations", async () => {
    backend = answer(true, "", { checked: "yes" });
    const p = plugin();
    assert.equal(p.admit, undefined, "a validating plugin, as upstream");
    const domain = t.naming.group("image-policy");
    const a = await validate(
      p,
      pod(
        "ok",
        ["nginx:1", "busybox:2"],
        {
          [`z.${domain}/ticket`]: "123",
          [`a.${domain}/owner`]: "me",
          unrelated: "x",
          [`${domain}/bare`]: "no",
        },
        { initContainers: [{ name: "init", image: "setup:3" }] },
      ),
    );
    const review = reviews().at(-1) as JsonObject;
    assert.equal(review.apiVersion, `${t.naming.group("imagepolicy")}/v1alpha1`);
    assert.equal(review.apiVersion, "imagepolicy.cluster.io/v1alpha1");
    assert.equal(review.kind, "ImageReview");
    assert.equal(
      JSON.stringify(review.spec),
      JSON.stringify({
        containers: [{ image: "nginx:1" }, { image: "busybox:2" }, { image: "setup:3" }],
        annotations: { [`a.${domain}/owner`]: "me", [`z.${domain}/ticket`]: "123" },
        namespace: "default",
      }),
    );
    assert.equal(a.annotations[`imagepolicywebhook.${domain}/checked`], "yes");
    assert.equal(peer.requests.at(-1)?.method, "POST");
    assert.equal(
      peer.requests.at(-1)?.clientCN,
      "apiserver",
      "the kubeconfig's client certificate is presented",
    );
    assert.deepEqual(annotationsOf(a.object)[`alpha.${domain}/failed-open`], undefined);
  });

  test("a bearer token and a CA file from the kubeconfig are used", async () => {
    backend = (review, req, res) =>
      req.headers.authorization === "Bearer s3cret" ? answer(true)(review, req, res) : sendJson(res, 401, {});
    const caFile = dir.write("ca.pem", peer.serverCa.certPem);
    const file = dir.write(
      "token.yaml",
      kubeconfigYaml({
        server: `${peer.url}/review`,
        cluster: { "certificate-authority": caFile },
        user: { token: "s3cret" },
      }),
    );
    await validate(plugin({}, file), pod("tok", ["token:1"]));
  });

  test("a denial is a 403 with upstream's text, with or without a reason", async () => {
    backend = answer(false, "unsigned image", { rule: "signed-only" });
    const a = t.attributes({ operation: "CREATE", resource: "pods", object: pod("bad", ["evil:latest"]) });
    await assert.rejects(
      plugin().validate?.(a) as Promise<void>,
      isForbidden(
        'pods "bad" is forbidden: image policy webhook backend denied one or more images: unsigned image',
      ),
    );
    assert.equal(a.annotations[`imagepolicywebhook.${t.naming.group("image-policy")}/rule`], "signed-only");
    backend = answer(false);
    await assert.rejects(
      validate(plugin(), pod("bad2", ["evil:2"])),
      isForbidden('pods "bad2" is forbidden: one or more images rejected by webhook backend'),
    );
    backend = (_r, _q, res) => sendJson(res, 200, { kind: "ImageReview", status: {} });
    await assert.rejects(
      validate(plugin(), pod("bad3", ["evil:3"])),
      isForbidden(/rejected by webhook backend/),
    );
  });

  test("answers are cached by review for allowTTL and denyTTL; -1 turns a cache off", async () => {
    backend = answer(true);
    const p = plugin({ allowTTL: 60 });
    let before = calls();
    await validate(p, pod("c1", ["cached:1"]));
    await validate(p, pod("c2", ["cached:1"]));
    assert.equal(calls() - before, 1, "the second pod with the same images is answered from the cache");
    await validate(p, pod("c3", ["cached:1"], { [`x.${t.naming.group("image-policy")}/why`]: "other" }));
    assert.equal(calls() - before, 2, "other forwarded annotations make another review");

    backend = answer(false, "no");
    before = calls();
    const d = plugin({ denyTTL: 60 });
    await assert.rejects(validate(d, pod("d1", ["denied:1"])), isForbidden(/denied one or more images: no/));
    backend = answer(true);
    await assert.rejects(validate(d, pod("d2", ["denied:1"])), isForbidden(/denied one or more images: no/));
    assert.equal(calls() - before, 1, "the denial is cached");

    before = calls();
    const uncached = plugin({ allowTTL: -1 });
    await validate(uncached, pod("c4", ["cached:2"]));
    await validate(uncached, pod("c5", ["cached:2"]));
    assert.equal(calls() - before, 2);
  });

  test("cached answers expire: denials after denyTTL, approvals after allowTTL", async () => {
    let clock = 1_000_000;
    const p = createImagePolicyWebhook(
      t.env({ configuration: { imagePolicy: { kubeConfigFile: kubeconfig, allowTTL: 60, denyTTL: 10 } } }),
      { callTimeoutMs: 2_000, now: () => clock },
    );
    plugins.push(p);
    backend = (review, req, res) => {
      const images = ((review.spec as JsonObject).containers as { image: string }[]).map((c) => c.image);
      answer(!images.includes("deny:1"), "listed")(review, req, res);
    };
    const before = calls();
    await validate(p, pod("t1", ["allow:1"]));
    await assert.rejects(validate(p, pod("t2", ["deny:1"])), isForbidden(/listed/));
    clock += 9_000;
    await validate(p, pod("t3", ["allow:1"]));
    await assert.rejects(validate(p, pod("t4", ["deny:1"])), isForbidden(/listed/));
    assert.equal(calls() - before, 2, "both answers still cached");
    clock += 2_000;
    await assert.rejects(validate(p, pod("t5", ["deny:1"])), isForbidden(/listed/));
    await validate(p, pod("t6", ["allow:1"]));
    assert.equal(calls() - before, 3, "the denial expired after 10 s, the approval did not");
    clock += 50_000;
    await validate(p, pod("t7", ["allow:1"]));
    assert.equal(calls() - before, 4, "the approval expired after 60 s");
  });

  test("closing the plugin ends a review waiting between retries", async () => {
    backend = (_r, _q, res) => sendJson(res, 500, {});
    const p = createImagePolicyWebhook(
      t.env({
        configuration: {
          imagePolicy: { kubeConfigFile: kubeconfig, retryBackoff: 300_000, defaultAllow: false },
        },
      }),
      { callTimeoutMs: 2_000 },
    );
    const before = calls();
    // Settled into a value at once, so the refusal is never an unhandled rejection.
    const outcome = validate(p, pod("cl", ["close:1"])).then(
      () => undefined,
      (err: unknown) => err,
    );
    while (calls() === before) await new Promise((r) => setTimeout(r, 5));
    await p.close?.();
    const bound = new Promise<never>((_, reject) =>
      setTimeout(() => reject(new Error("the review did not end")), 10_000).unref(),
    );
    isForbidden(/an error on the server|aborted/)(await Promise.race([outcome, bound]));
    assert.equal(calls() - before, 1);
  });

  const failures: [string, Backend, number, RegExp, number?][] = [
    [
      "an HTTP 500",
      (_r, _q, res) => {
        res.writeHead(500, { "content-type": "text/plain" });
        res.end("down");
      },
      5,
      /an error on the server \("down"\) has prevented the request from succeeding/,
    ],
    [
      "an HTTP 504",
      (_r, _q, res) => sendJson(res, 504, {}),
      5,
      /unable to return a response in the time allotted/,
    ],
    ["an HTTP 429", (_r, _q, res) => sendJson(res, 429, {}), 5, /too many requests/],
    [
      "a 503 with Retry-After",
      (_r, _q, res) => {
        res.writeHead(503, { "retry-after": "1" });
        res.end();
      },
      5,
      /currently unable to handle the request/,
    ],
    [
      "a Status it may not be retried",
      (_r, _q, res) =>
        sendJson(res, 403, {
          kind: "Status",
          apiVersion: "v1",
          status: "Failure",
          message: "go away",
          reason: "Forbidden",
        }),
      1,
      /go away$/,
    ],
    ["an HTTP 404", (_r, _q, res) => sendJson(res, 404, {}), 1, /could not find the requested resource/],
    [
      "garbage",
      (_r, _q, res) => {
        res.writeHead(200, { "content-type": "application/json" });
        res.end("not json at all");
      },
      1,
      /cannot decode the backend's answer as an ImageReview/,
    ],
    [
      "a reply of another kind",
      (_r, _q, res) => sendJson(res, 200, { kind: "Status", status: {} }),
      1,
      /answered a Status/,
    ],
    [
      "allowed as a string",
      (_r, _q, res) => sendJson(res, 200, { kind: "ImageReview", status: { allowed: "yes" } }),
      1,
      /status.allowed is not a boolean/,
    ],
    [
      "a reset connection",
      (_r, _q, res) => resetConnection(res),
      5,
      /POST https:\/\/127\.0\.0\.1:\d+\/review: /,
    ],
    ["nothing within the timeout", () => {}, 1, /timed out after 300 ms/, 300],
  ];
  for (const [what, failing, attempts, message, timeout] of failures) {
    test(`a backend answering ${what}: ${attempts} attempt(s), then defaultAllow decides`, async () => {
      backend = failing;
      const before = calls();
      await assert.rejects(
        validate(plugin({ defaultAllow: false }, kubeconfig, timeout), pod("f1", ["x:1"])),
        isForbidden(new RegExp(`^pods "f1" is forbidden: .*${message.source}`)),
      );
      assert.equal(calls() - before, attempts);
      const a = await validate(plugin({ defaultAllow: true }, kubeconfig, timeout), pod("f2", ["x:1"]));
      const domain = t.naming.group("image-policy");
      assert.equal(a.annotations[`imagepolicywebhook.${domain}/failed-open`], "true");
      assert.equal(annotationsOf(a.object)[`alpha.${domain}/failed-open`], "true");
    });
  }

  test("a backend that is down: refused at once unless defaultAllow", async () => {
    const port = await closedPort();
    const file = dir.write(
      "down.yaml",
      kubeconfigYaml({ server: `https://127.0.0.1:${port}/`, caPem: peer.serverCa.certPem }),
    );
    await assert.rejects(validate(plugin({}, file), pod("down1", ["x:2"])), isForbidden(/ECONNREFUSED/));
    const a = await validate(plugin({ defaultAllow: true }, file), pod("down2", ["x:2"]));
    assert.equal(annotationsOf(a.object)[`alpha.${t.naming.group("image-policy")}/failed-open`], "true");
  });

  test("only pod writes are reviewed; ephemeral containers on their subresource", async () => {
    backend = answer(false, "no");
    const p = plugin();
    const before = calls();
    await p.validate?.(
      t.attributes({
        operation: "CREATE",
        resource: "configmaps",
        object: { kind: "ConfigMap", metadata: { name: "c", namespace: "default" } },
      }),
    );
    await p.validate?.(
      t.attributes({
        operation: "UPDATE",
        resource: "pods",
        subresource: "status",
        object: pod("s", ["a"]),
        oldObject: pod("s", ["a"]),
      }),
    );
    await p.validate?.(t.attributes({ operation: "DELETE", resource: "pods", oldObject: pod("s", ["a"]) }));
    assert.equal(calls(), before, "no review for other resources, other subresources or deletes");

    await assert.rejects(
      validate(p, pod("u", ["upd:1"]), "UPDATE"),
      isForbidden(/denied one or more images: no/),
    );
    const withEphemeral = pod(
      "e",
      ["main:1"],
      {},
      { ephemeralContainers: [{ name: "debug", image: "debugger:1" }] },
    );
    await assert.rejects(
      p.validate?.(
        t.attributes({
          operation: "UPDATE",
          resource: "pods",
          subresource: "ephemeralcontainers",
          object: withEphemeral,
          oldObject: pod("e", ["main:1"]),
        }),
      ) as Promise<void>,
      isForbidden(/denied one or more images: no/),
    );
    assert.deepEqual((reviews().at(-1) as JsonObject).spec, {
      containers: [{ image: "debugger:1" }],
      namespace: "default",
    });
  });

  test("an object that is not a Pod is a bad request", async () => {
    const p = plugin();
    const a = t.attributes({ operation: "CREATE", resource: "pods", object: pod("np", ["a"]) });
    (a.object as JsonObject).kind = "ConfigMap";
    await assert.rejects(p.validate?.(a) as Promise<void>, (err: unknown) => {
      assert.ok(err instanceof AdmissionError);
      assert.equal(err.code, 400);
      assert.equal(err.message, "Resource was marked with kind Pod but was unable to be converted");
      return true;
    });
  });

  test("bad configurations fail at start", async () => {
    const plain = dir.write("plain.yaml", kubeconfigYaml({ server: "http://127.0.0.1:1/review" }));
    const cases: [unknown, RegExp][] = [
      [undefined, /no config specified/],
      ["text", /must be an object with an imagePolicy field/],
      [{ imagePolicy: {} }, /kubeConfigFile is required/],
      [{ imagePolicy: { kubeConfigFile: 7 } }, /kubeConfigFile must be a string/],
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
        { imagePolicy: { kubeConfigFile: kubeconfig, denyTTL: -5 } },
        /deny cache: valid value is between 1s and 30m0s, got -5s/,
      ],
      [
        { imagePolicy: { kubeConfigFile: kubeconfig, retryBackoff: 300001 } },
        /backoff: valid value is between 1ns and 5m0s, got 5m0.001s/,
      ],
      [{ imagePolicy: { kubeConfigFile: kubeconfig, allowTTL: "5m" } }, /allowTTL must be a whole number/],
      [
        { imagePolicy: { kubeConfigFile: kubeconfig, retryBackoff: 1.5 } },
        /retryBackoff must be a whole number/,
      ],
      [
        { imagePolicy: { kubeConfigFile: kubeconfig, defaultAllow: "yes" } },
        /defaultAllow must be a boolean/,
      ],
      [
        { imagePolicy: { kubeConfigFile: `${dir.path}/missing.yaml` } },
        /ImagePolicyWebhook: kubeConfigFile .*missing\.yaml/,
      ],
      [
        { imagePolicy: { kubeConfigFile: dir.write("junk.yaml", "clusters: 5\n") } },
        /ImagePolicyWebhook: kubeConfigFile/,
      ],
    ];
    for (const [configuration, pattern] of cases)
      await assert.rejects(
        async () => registration.factory(t.env({ configuration })),
        pattern,
        String(pattern),
      );
    // The sentinels: 0 takes the default, -1 turns a cache off; both start.
    const ok = await registration.factory(
      t.env({
        configuration: {
          imagePolicy: { kubeConfigFile: kubeconfig, allowTTL: 0, denyTTL: -1, retryBackoff: -1 },
        },
      }),
    );
    await ok.close?.();
  });
});

/** Answers with a TCP reset instead of a response: the TLS socket's own TCP socket is reset. */
function resetConnection(res: ServerResponse): void {
  // `_parent` is Node's TCP socket under a server-side TLS socket; a TLS socket cannot be reset itself.
  const tls = res.socket as unknown as { _parent?: { resetAndDestroy(): void } } | null;
  if (!tls?._parent) throw new Error("no TCP socket under the TLS socket");
  tls._parent.resetAndDestroy();
}

describe("ImagePolicyWebhook with upstream's naming", () => {
  test("group, annotation domain, audit keys and failed-open annotation are upstream's", async () => {
    const t = await startAdmissionTest({ preset: "kubernetes" });
    const seen: JsonObject[] = [];
    let fail = false;
    const peer = await startHttpsPeer((req, res) => {
      const review = JSON.parse(req.body) as JsonObject;
      seen.push(review);
      if (fail) return sendJson(res, 500, {});
      answer(true, "", { note: "n" })(review, req, res);
    });
    const dir = tempDir("imagepolicy-k8s-");
    const plugins: AdmissionPlugin[] = [];
    try {
      const file = dir.write("k.yaml", kubeconfigYaml({ server: peer.url, caPem: peer.serverCa.certPem }));
      const make = (defaultAllow: boolean) => {
        const p = createImagePolicyWebhook(
          t.env({ configuration: { imagePolicy: { kubeConfigFile: file, retryBackoff: 1, defaultAllow } } }),
          { callTimeoutMs: 2_000 },
        );
        plugins.push(p);
        return p;
      };
      const a = t.attributes({
        operation: "CREATE",
        resource: "pods",
        object: pod("k", ["img:1"], {
          "break.image-policy.k8s.io/glass": "true",
          "x.image-policy.cluster.io/no": "1",
        }),
      });
      await make(false).validate?.(a);
      assert.equal(seen[0]?.apiVersion, "imagepolicy.k8s.io/v1alpha1");
      assert.deepEqual(((seen[0]?.spec ?? {}) as JsonObject).annotations, {
        "break.image-policy.k8s.io/glass": "true",
      });
      assert.equal(a.annotations["imagepolicywebhook.image-policy.k8s.io/note"], "n");
      fail = true;
      const b = t.attributes({ operation: "CREATE", resource: "pods", object: pod("k2", ["img:2"]) });
      await make(true).validate?.(b);
      assert.equal(b.annotations["imagepolicywebhook.image-policy.k8s.io/failed-open"], "true");
      assert.equal(annotationsOf(b.object)["alpha.image-policy.k8s.io/failed-open"], "true");
    } finally {
      for (const p of plugins) await p.close?.();
      await peer.close();
      dir.remove();
      await t.stop();
    }
  });
});
