import assert from "node:assert/strict";
import type { ServerResponse } from "node:http";
import { after, afterEach, before, describe, test } from "node:test";
import { type AdmissionTest, startAdmissionTest } from "../../../gateway/admission/testing.ts";
import {
  b64,
  type HttpsPeer,
  type PeerRequest,
  sendJson,
  startHttpsPeer,
  tempDir,
} from "../../client/testing/index.ts";
import { AdmissionError, type AdmissionPlugin, type JsonObject } from "../index.ts";
import { mutatingWebhook, validatingWebhook } from "./index.ts";

type Answer = (review: JsonObject, req: PeerRequest, res: ServerResponse) => void;

/** A webhook peer whose behaviour each test sets; it answers with `answer` for its path. */
interface Peer {
  readonly peer: HttpsPeer;
  readonly answers: Map<string, Answer>;
  calls(path: string): JsonObject[];
}

async function startPeer(altNames: string[] = []): Promise<Peer> {
  const answers = new Map<string, Answer>();
  const peer = await startHttpsPeer(
    (req, res) => {
      const path = req.url.split("?")[0] ?? "";
      const answer = answers.get(path);
      if (!answer) return sendJson(res, 404, { message: `no answer for ${path}` });
      answer(JSON.parse(req.body) as JsonObject, req, res);
    },
    { altNames },
  );
  return {
    peer,
    answers,
    calls: (path) =>
      peer.requests.filter((r) => r.url.split("?")[0] === path).map((r) => JSON.parse(r.body) as JsonObject),
  };
}

const request = (review: JsonObject) => review.request as JsonObject;
/** The labels of the object under review. */
const objectLabels = (review: JsonObject) =>
  ((request(review).object as JsonObject).metadata as JsonObject).labels as
    | Record<string, string>
    | undefined;

function allow(extra: JsonObject = {}): Answer {
  return (review, _req, res) =>
    sendJson(res, 200, {
      apiVersion: review.apiVersion,
      kind: "AdmissionReview",
      response: { uid: request(review).uid, allowed: true, ...extra },
    });
}

function deny(status: JsonObject): Answer {
  return (review, _req, res) =>
    sendJson(res, 200, {
      apiVersion: review.apiVersion,
      kind: "AdmissionReview",
      response: { uid: request(review).uid, allowed: false, status },
    });
}

function patchWith(ops: (review: JsonObject) => unknown[]): Answer {
  return (review, _req, res) => {
    const patch = ops(review);
    sendJson(res, 200, {
      apiVersion: review.apiVersion,
      kind: "AdmissionReview",
      response: {
        uid: request(review).uid,
        allowed: true,
        ...(patch.length > 0 ? { patchType: "JSONPatch", patch: b64(JSON.stringify(patch)) } : {}),
      },
    });
  };
}

const pod = (name: string, labels: Record<string, string> = {}): JsonObject => ({
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name, namespace: "prod", labels },
  spec: { containers: [{ name: "c", image: "nginx" }] },
});

describe("admission webhooks against real HTTPS peers", () => {
  let t: AdmissionTest;
  let p: Peer;
  let group: string;
  const plugins: AdmissionPlugin[] = [];
  let configs = 0;

  before(async () => {
    t = await startAdmissionTest();
    p = await startPeer(["hook.webhooks.svc"]);
    group = t.naming.group("admissionregistration");
    await t.create("namespaces", undefined, { metadata: { name: "prod", labels: { env: "prod" } } });
    await t.create("namespaces", undefined, { metadata: { name: "dev", labels: { env: "dev" } } });
  });
  after(async () => {
    for (const plugin of plugins) await plugin.close?.();
    await p.peer.close();
    await t.stop();
  });

  const caBundle = () => b64(p.peer.serverCa.certPem);
  /** Configurations stored by the current test, removed after it. */
  const stored: [string, string][] = [];
  const drop = async () => {
    for (const [resource, name] of stored.splice(0)) await t.remove(resource, undefined, name, group);
  };
  afterEach(drop);

  /** Stores a configuration with one webhook at `path` and returns a fresh plugin over it. */
  async function configure(
    mutating: boolean,
    hooks: { path: string; name?: string; [k: string]: unknown }[],
    options: { configuration?: unknown; gates?: Record<string, boolean> } = {},
  ): Promise<AdmissionPlugin> {
    const kind = mutating ? "MutatingWebhookConfiguration" : "ValidatingWebhookConfiguration";
    const resource = mutating ? "mutatingwebhookconfigurations" : "validatingwebhookconfigurations";
    // Earlier tests' configurations are removed by name order: each test gets its own prefix.
    configs++;
    const configName = `cfg-${String(configs).padStart(3, "0")}`;
    stored.push([resource, configName]);
    await t.create(
      resource,
      undefined,
      {
        apiVersion: `${group}/v1`,
        kind,
        metadata: { name: configName },
        webhooks: hooks.map(({ path, name, ...rest }, i) => ({
          name: name ?? `hook${i}.test.io`,
          clientConfig: { url: `${p.peer.url}${path}`, caBundle: caBundle() },
          rules: [{ operations: ["CREATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["pods"] }],
          sideEffects: "None",
          admissionReviewVersions: ["v1"],
          ...rest,
        })),
      },
      group,
    );
    const registration = mutating ? mutatingWebhook : validatingWebhook;
    const plugin = await registration.factory(
      t.env({ configuration: options.configuration, options: { featureGates: options.gates ?? {} } }),
    );
    plugins.push(plugin);
    return plugin;
  }

  /** Runs the plugin's phase on a fresh Pod create; only this test's hooks answer (paths are unique). */
  async function run(
    plugin: AdmissionPlugin,
    attrs = t.attributes({ operation: "CREATE", resource: "pods", object: pod("p") }),
  ) {
    await (plugin.admit ?? plugin.validate)?.call(plugin, attrs);
    return attrs;
  }

  /** Earlier tests' hooks stay stored; they allow everything at their own paths. */
  const answered = (path: string, answer: Answer) => p.answers.set(path, answer);

  test("a validating webhook's refusal carries its code and message", async () => {
    answered("/deny", deny({ code: 403, message: "pods need an owner", reason: "Forbidden" }));
    const plugin = await configure(false, [{ path: "/deny", name: "deny.test.io" }]);
    await assert.rejects(run(plugin), (err: unknown) => {
      assert.ok(err instanceof AdmissionError);
      assert.equal(err.code, 403);
      assert.equal(err.message, 'admission webhook "deny.test.io" denied the request: pods need an owner');
      return true;
    });
    const review = p.calls("/deny")[0] as JsonObject;
    assert.equal(review.apiVersion, `${t.naming.group("admission")}/v1`);
    const req = request(review);
    assert.equal(req.operation, "CREATE");
    assert.deepEqual(req.resource, { group: "", version: "v1", resource: "pods" });
    assert.equal((req.object as JsonObject).kind, "Pod");
    assert.equal(req.oldObject, null);
    assert.equal(req.dryRun, false);
    assert.equal((req.userInfo as JsonObject).username, "admin");
  });

  test("a refusal without a code is a 400; codes below 400 are raised to 400", async () => {
    answered("/deny-200", deny({ code: 200 }));
    const plugin = await configure(false, [{ path: "/deny-200", name: "low.test.io" }]);
    await assert.rejects(run(plugin), (err: unknown) => {
      assert.ok(err instanceof AdmissionError);
      assert.equal(err.code, 400);
      assert.equal(err.message, 'admission webhook "low.test.io" denied the request without explanation');
      return true;
    });
  });

  test("a refusal's code up to 999 is kept; a code that is no int32 fails the call", async () => {
    answered("/deny-650", deny({ code: 650, message: "odd but legal" }));
    const kept = await configure(false, [{ path: "/deny-650", name: "odd.test.io" }]);
    await assert.rejects(run(kept), (err: unknown) => {
      assert.ok(err instanceof AdmissionError);
      assert.equal(err.code, 650);
      assert.equal(err.message, 'admission webhook "odd.test.io" denied the request: odd but legal');
      return true;
    });
    // Hooks stay stored until the test ends: each one allows once it has been looked at.
    answered("/deny-650", allow());
    for (const [path, code] of [
      ["/deny-float", 403.5],
      ["/deny-text", "403"],
      ["/deny-int64", 2 ** 31],
    ] as const) {
      answered(path, deny({ code, message: "never read" }));
      const failing = await configure(false, [{ path, name: `bad${path.slice(5)}.test.io` }]);
      await assert.rejects(run(failing), (err: unknown) => {
        assert.ok(err instanceof AdmissionError);
        assert.equal(err.code, 500);
        assert.match(
          err.message,
          /failed calling webhook "bad-[a-z0-9]+\.test\.io": received invalid webhook response: response\.status\.code is not a 32-bit integer/,
        );
        return true;
      });
      answered(path, allow());
      answered(`${path}-ignored`, deny({ code, message: "never read" }));
      const ignoring = await configure(false, [
        { path: `${path}-ignored`, name: `ignored${path.slice(5)}.test.io`, failurePolicy: "Ignore" },
      ]);
      await run(ignoring);
      answered(`${path}-ignored`, allow());
    }
  });

  test("a mutating webhook's patch is applied, annotated and its warnings passed on", async () => {
    answered("/mutate", (review, _req, res) => {
      const ops = [{ op: "add", path: "/metadata/labels/mutated", value: "yes" }];
      sendJson(res, 200, {
        apiVersion: review.apiVersion,
        kind: "AdmissionReview",
        response: {
          uid: request(review).uid,
          allowed: true,
          patchType: "JSONPatch",
          patch: b64(JSON.stringify(ops)),
          warnings: ["label added"],
          auditAnnotations: { why: "policy" },
        },
      });
    });
    const plugin = await configure(true, [{ path: "/mutate", name: "mutate.test.io" }]);
    const a = await run(plugin);
    const labels = ((a.object as JsonObject).metadata as JsonObject).labels as Record<string, string>;
    assert.equal(labels.mutated, "yes");
    assert.deepEqual(a.warnings, ["label added"]);
    assert.equal(a.annotations["mutate.test.io/why"], "policy");
    const domain = `mutation.webhook.${t.naming.group("admission")}`;
    const mine = Object.entries(a.annotations).find(
      ([, v]) => v.includes("mutate.test.io") && v.includes("mutated"),
    );
    assert.ok(mine, "a mutation annotation for the webhook");
    assert.match(mine[0], new RegExp(`^${domain.replaceAll(".", "\\.")}/round_0_index_\\d+$`));
    assert.deepEqual(JSON.parse(mine[1]), {
      configuration: JSON.parse(mine[1]).configuration,
      webhook: "mutate.test.io",
      mutated: true,
    });
    const patchKey = mine[0].replace(/^mutation\./, "patch.");
    assert.ok(a.requestAnnotations[patchKey], `patch annotation ${patchKey} at level Request`);
    assert.equal(a.annotations[patchKey], undefined, "a patch never goes into Metadata-level annotations");
  });

  test("an invalid patch is not applied in part; failurePolicy decides", async () => {
    // The second op fails: the first must not stay applied.
    const ops = () => [
      { op: "add", path: "/metadata/labels/partial", value: "x" },
      { op: "remove", path: "/spec/nothing/here" },
    ];
    answered("/bad-patch", patchWith(ops));
    const failing = await configure(true, [{ path: "/bad-patch", name: "badpatch.test.io" }]);
    const attrs = t.attributes({ operation: "CREATE", resource: "pods", object: pod("p") });
    await assert.rejects(
      run(failing, attrs),
      (err: unknown) => err instanceof AdmissionError && err.code === 500,
    );
    assert.equal(
      (((attrs.object as JsonObject).metadata as JsonObject).labels as JsonObject).partial,
      undefined,
    );
    await drop();
    answered("/bad-patch-ignored", patchWith(ops));
    const ignoring = await configure(true, [
      { path: "/bad-patch-ignored", name: "badpatch2.test.io", failurePolicy: "Ignore" },
    ]);
    const a = await run(ignoring);
    assert.equal((((a.object as JsonObject).metadata as JsonObject).labels as JsonObject).partial, undefined);
    assert.ok(Object.values(a.annotations).includes("badpatch2.test.io"), "failed-open annotation");
  });

  const garbage: [string, Answer][] = [
    [
      "not JSON",
      (_r, _q, res) => {
        res.writeHead(200, { "content-type": "application/json" });
        res.end("<html>oops");
      },
    ],
    [
      "a wrong uid",
      (review, _q, res) =>
        sendJson(res, 200, {
          apiVersion: review.apiVersion,
          kind: "AdmissionReview",
          response: { uid: "other", allowed: true },
        }),
    ],
    [
      "no response",
      (review, _q, res) => sendJson(res, 200, { apiVersion: review.apiVersion, kind: "AdmissionReview" }),
    ],
    [
      "a wrong kind",
      (review, _q, res) =>
        sendJson(res, 200, {
          apiVersion: "v1",
          kind: "Pod",
          response: { uid: request(review).uid, allowed: true },
        }),
    ],
    [
      "a patch without patchType",
      (review, _q, res) =>
        sendJson(res, 200, {
          apiVersion: review.apiVersion,
          kind: "AdmissionReview",
          response: { uid: request(review).uid, allowed: true, patch: b64("[]x") },
        }),
    ],
    ["an HTTP 500", (_r, _q, res) => sendJson(res, 500, { message: "boom" })],
    [
      "a huge answer",
      (_r, _q, res) => {
        res.writeHead(200, { "content-type": "application/json" });
        const chunk = "x".repeat(1 << 20);
        let sent = 0;
        const write = () => {
          while (sent < 20) {
            sent++;
            if (!res.write(chunk)) return void res.once("drain", write);
          }
          res.end();
        };
        res.on("error", () => {});
        write();
      },
    ],
  ];
  for (const [what, answer] of garbage) {
    test(`a webhook answering ${what} fails the request under Fail and is skipped under Ignore`, async () => {
      const path = `/garbage-${what.replaceAll(" ", "-")}`;
      answered(path, answer);
      const failing = await configure(false, [{ path, name: "garbage.test.io" }]);
      await assert.rejects(run(failing), (err: unknown) => {
        assert.ok(err instanceof AdmissionError);
        assert.equal(err.code, 500);
        assert.match(err.message, /^Internal error occurred: failed calling webhook "garbage\.test\.io": /);
        return true;
      });
      await drop();
      const ignoring = await configure(false, [
        { path, name: "garbage-ignored.test.io", failurePolicy: "Ignore" },
      ]);
      const a = await run(ignoring);
      assert.ok(Object.values(a.annotations).includes("garbage-ignored.test.io"), "failed-open annotation");
    });
  }

  test("a hanging webhook is abandoned after timeoutSeconds and failurePolicy decides", async () => {
    const hung: ServerResponse[] = [];
    answered("/hang", (_review, _req, res) => {
      hung.push(res);
    });
    const failing = await configure(false, [{ path: "/hang", name: "hang.test.io", timeoutSeconds: 1 }]);
    await assert.rejects(run(failing), (err: unknown) => {
      assert.ok(err instanceof AdmissionError);
      assert.equal(err.code, 500);
      assert.match(
        err.message,
        /failed calling webhook "hang\.test\.io": failed to call webhook: .*timed out/,
      );
      return true;
    });
    await drop();
    const ignoring = await configure(false, [
      { path: "/hang", name: "hang-ignored.test.io", timeoutSeconds: 1, failurePolicy: "Ignore" },
    ]);
    const a = await run(ignoring);
    assert.ok(Object.values(a.annotations).includes("hang-ignored.test.io"), "failed-open annotation");
    for (const res of hung) res.destroy();
  });

  test("failurePolicy Ignore lets the request through a failing webhook, with a failed-open annotation", async () => {
    answered("/down", (_r, _q, res) => sendJson(res, 503, { message: "unavailable" }));
    const plugin = await configure(false, [{ path: "/down", name: "down.test.io", failurePolicy: "Ignore" }]);
    const a = await run(plugin);
    const key = Object.keys(a.annotations).find((k) => a.annotations[k] === "down.test.io");
    assert.ok(
      key?.startsWith(`failed-open.validating.webhook.${t.naming.group("admission")}/round_0_index_`),
    );
  });

  test("reinvocationPolicy IfNeeded calls a webhook again after a later one changed the object", async () => {
    answered(
      "/first",
      patchWith((review) => {
        const labels = objectLabels(review);
        return labels?.first ? [] : [{ op: "add", path: "/metadata/labels/first", value: "1" }];
      }),
    );
    answered(
      "/second",
      patchWith((review) => {
        const labels = objectLabels(review);
        return labels?.second ? [] : [{ op: "add", path: "/metadata/labels/second", value: "2" }];
      }),
    );
    answered("/never", allow());
    const plugin = await configure(true, [
      { path: "/first", name: "first.test.io", reinvocationPolicy: "IfNeeded" },
      { path: "/second", name: "second.test.io", reinvocationPolicy: "IfNeeded" },
      { path: "/never", name: "never.test.io" },
    ]);
    const a = await run(plugin);
    const labels = ((a.object as JsonObject).metadata as JsonObject).labels as Record<string, string>;
    assert.equal(labels.first, "1");
    assert.equal(labels.second, "2");
    assert.equal(p.calls("/first").length, 2, "first is reinvoked: second changed the object after it");
    assert.equal(p.calls("/second").length, 1, "nothing changed the object after second");
    assert.equal(p.calls("/never").length, 1);
    const second = p.calls("/first")[1] as JsonObject;
    const seen = ((request(second).object as JsonObject).metadata as JsonObject).labels as Record<
      string,
      string
    >;
    assert.equal(seen.second, "2", "the reinvocation sees the later change");
  });

  test("rules, selectors and scope decide which requests a webhook sees", async () => {
    answered("/select", allow());
    const plugin = await configure(false, [
      {
        path: "/select",
        name: "select.test.io",
        rules: [
          {
            operations: ["CREATE", "UPDATE"],
            apiGroups: [""],
            apiVersions: ["v1"],
            resources: ["pods", "configmaps"],
            scope: "Namespaced",
          },
        ],
        namespaceSelector: { matchLabels: { env: "prod" } },
        objectSelector: { matchExpressions: [{ key: "skip", operator: "DoesNotExist" }] },
      },
    ]);
    const cases: [string, ReturnType<AdmissionTest["attributes"]>, boolean][] = [
      [
        "a pod in a matching namespace",
        t.attributes({ operation: "CREATE", resource: "pods", object: pod("a") }),
        true,
      ],
      [
        "a pod in another namespace",
        t.attributes({
          operation: "CREATE",
          resource: "pods",
          object: { ...pod("b"), metadata: { name: "b", namespace: "dev" } },
        }),
        false,
      ],
      [
        "an excluded object",
        t.attributes({ operation: "CREATE", resource: "pods", object: pod("c", { skip: "1" }) }),
        false,
      ],
      [
        "a delete (operation not listed)",
        t.attributes({ operation: "DELETE", resource: "pods", oldObject: pod("d") }),
        false,
      ],
      [
        "a configmap",
        t.attributes({
          operation: "CREATE",
          resource: "configmaps",
          object: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "e", namespace: "prod" } },
        }),
        true,
      ],
      [
        "a pod's status (subresource not listed)",
        t.attributes({
          operation: "UPDATE",
          resource: "pods",
          subresource: "status",
          object: pod("f"),
          oldObject: pod("f"),
        }),
        false,
      ],
    ];
    for (const [what, attrs, called] of cases) {
      const before = p.calls("/select").length;
      await run(plugin, attrs);
      assert.equal(p.calls("/select").length - before, called ? 1 : 0, what);
    }
  });

  test("webhooks are never called for the admission configuration resources", async () => {
    answered("/all", deny({ message: "everything denied" }));
    const plugin = await configure(false, [
      {
        path: "/all",
        name: "all.test.io",
        rules: [{ operations: ["*"], apiGroups: ["*"], apiVersions: ["*"], resources: ["*/*"] }],
      },
    ]);
    await run(
      plugin,
      t.attributes({
        operation: "DELETE",
        resource: "validatingwebhookconfigurations",
        group,
        name: "cfg-001",
        oldObject: {
          apiVersion: `${group}/v1`,
          kind: "ValidatingWebhookConfiguration",
          metadata: { name: "cfg-001" },
        },
      }),
    );
    await assert.rejects(run(plugin), /everything denied/);
  });

  test("a Service reference is resolved through the Service, with the Service's DNS name for TLS", async () => {
    await t.create("namespaces", undefined, { metadata: { name: "webhooks" } });
    // Endpoints may not be loopback addresses, so the reachable case goes through an ExternalName
    // Service; the EndpointSlice case is checked up to the choice of a ready endpoint.
    await t.create("services", "webhooks", {
      metadata: { name: "hook", namespace: "webhooks" },
      spec: { type: "ExternalName", externalName: "localhost" },
    });
    answered("/svc-path", deny({ message: "reached through the service" }));
    const plugin = await configure(false, [
      {
        path: "/unused",
        name: "svc.test.io",
        clientConfig: {
          service: { namespace: "webhooks", name: "hook", path: "/svc-path", port: p.peer.port },
          caBundle: caBundle(),
        },
      },
    ]);
    await assert.rejects(run(plugin), /reached through the service/);

    await t.create("services", "webhooks", {
      metadata: { name: "idle", namespace: "webhooks" },
      spec: { ports: [{ name: "https", port: 443, targetPort: 8443 }] },
    });
    await t.create(
      "endpointslices",
      "webhooks",
      {
        metadata: {
          name: "idle-1",
          namespace: "webhooks",
          labels: { [t.naming.label("service-name")]: "idle" },
        },
        addressType: "IPv4",
        endpoints: [{ addresses: ["10.0.0.9"], conditions: { ready: false } }],
        ports: [{ name: "https", port: 8443, protocol: "TCP" }],
      },
      t.naming.group("discovery"),
    );
    const idle = await configure(false, [
      {
        path: "/unused",
        name: "idle.test.io",
        clientConfig: { service: { namespace: "webhooks", name: "idle" }, caBundle: caBundle() },
      },
    ]);
    await assert.rejects(run(idle), /no endpoints available for service "idle"/);
    await drop();
    const wrongPort = await configure(false, [
      {
        path: "/unused",
        name: "port.test.io",
        clientConfig: { service: { namespace: "webhooks", name: "idle", port: 444 }, caBundle: caBundle() },
      },
    ]);
    await assert.rejects(run(wrongPort), /no service port 444 found for service "idle"/);
  });

  test("credentials come from the WebhookAdmissionConfiguration's kubeconfig, matched by host:port", async () => {
    const dir = tempDir("webhook-creds-");
    try {
      const file = dir.write(
        "creds.yaml",
        JSON.stringify({
          apiVersion: "v1",
          kind: "Config",
          users: [
            { name: `127.0.0.1:${p.peer.port}`, user: { token: "for-this-peer" } },
            { name: "*", user: { token: "for-anyone" } },
          ],
        }),
      );
      answered("/creds", allow());
      const plugin = await configure(false, [{ path: "/creds", name: "creds.test.io" }], {
        configuration: {
          apiVersion: `${t.naming.group("apiserver.config")}/v1`,
          kind: "WebhookAdmissionConfiguration",
          kubeConfigFile: file,
        },
      });
      await run(plugin);
      const seen = p.peer.requests.filter((r) => r.url.startsWith("/creds")).at(-1);
      assert.equal(seen?.headers.authorization, "Bearer for-this-peer");
      await assert.rejects(
        async () =>
          mutatingWebhook.factory(t.env({ configuration: { kubeConfigFile: "relative/creds.yaml" } })),
        /must be an absolute file path/,
      );
      await assert.rejects(
        async () =>
          mutatingWebhook.factory(t.env({ configuration: { kind: "Something", kubeConfigFile: file } })),
        /unsupported configuration kind/,
      );
    } finally {
      dir.remove();
    }
  });

  test("a webhook speaking only v1beta1 gets a v1beta1 review", async () => {
    answered("/beta", allow());
    const beta = await configure(false, [
      { path: "/beta", name: "beta.test.io", admissionReviewVersions: ["v1beta1"] },
    ]);
    await run(beta);
    assert.equal(
      (p.calls("/beta").at(-1) as JsonObject).apiVersion,
      `${t.naming.group("admission")}/v1beta1`,
    );
  });

  test("matchConditions (gate AdmissionWebhookMatchConditions): false skips, an error follows failurePolicy", async () => {
    answered("/cond", deny({ message: "called" }));
    const conditions = [
      { name: "labelled", expression: "has(object.metadata.labels) && 'check' in object.metadata.labels" },
      { name: "admin", expression: "request.userInfo.username == 'admin'" },
    ];
    const gates = { AdmissionWebhookMatchConditions: true };
    const plugin = await configure(
      false,
      [{ path: "/cond", name: "cond.test.io", matchConditions: conditions }],
      { gates },
    );
    await run(plugin, t.attributes({ operation: "CREATE", resource: "pods", object: pod("plain") }));
    await assert.rejects(
      run(
        plugin,
        t.attributes({ operation: "CREATE", resource: "pods", object: pod("checked", { check: "1" }) }),
      ),
      /called/,
    );
    await drop();
    const broken = [{ name: "broken", expression: "object.metadata.labels.missing == 'x'" }];
    const failing = await configure(
      false,
      [{ path: "/cond", name: "cond2.test.io", matchConditions: broken }],
      { gates },
    );
    await assert.rejects(
      run(failing),
      /failed calling webhook "cond2\.test\.io": failed to evaluate match conditions: expression 'broken' resulted in error/,
    );
    await drop();
    const ignoring = await configure(
      false,
      [{ path: "/cond", name: "cond3.test.io", matchConditions: broken, failurePolicy: "Ignore" }],
      { gates },
    );
    await run(ignoring);
    await drop();
    const gateOff = await configure(false, [
      { path: "/cond", name: "cond4.test.io", matchConditions: conditions },
    ]);
    await assert.rejects(run(gateOff), /called/, "without the gate the conditions are not looked at");
  });

  test("matchPolicy Equivalent calls a webhook at another served version, converting the object", async () => {
    const autoscaling = "autoscaling";
    answered("/hpa", allow());
    const plugin = await configure(false, [
      {
        path: "/hpa",
        name: "hpa.test.io",
        rules: [
          {
            operations: ["CREATE"],
            apiGroups: [autoscaling],
            apiVersions: ["v1"],
            resources: ["horizontalpodautoscalers"],
          },
        ],
      },
    ]);
    const hpa = {
      apiVersion: `${autoscaling}/v2`,
      kind: "HorizontalPodAutoscaler",
      metadata: { name: "h", namespace: "default" },
      spec: {
        scaleTargetRef: { kind: "Deployment", name: "d", apiVersion: "apps/v1" },
        minReplicas: 1,
        maxReplicas: 3,
      },
    };
    await run(
      plugin,
      t.attributes({
        operation: "CREATE",
        resource: "horizontalpodautoscalers",
        group: autoscaling,
        version: "v2",
        object: hpa,
      }),
    );
    const req = request(p.calls("/hpa").at(-1) as JsonObject);
    assert.deepEqual(req.resource, {
      group: autoscaling,
      version: "v1",
      resource: "horizontalpodautoscalers",
    });
    assert.deepEqual(req.requestResource, {
      group: autoscaling,
      version: "v2",
      resource: "horizontalpodautoscalers",
    });
    assert.equal((req.object as JsonObject).apiVersion, `${autoscaling}/v1`);
    const exact = await configure(false, [
      {
        path: "/hpa-exact",
        name: "hpa-exact.test.io",
        matchPolicy: "Exact",
        rules: [
          {
            operations: ["CREATE"],
            apiGroups: [autoscaling],
            apiVersions: ["v1"],
            resources: ["horizontalpodautoscalers"],
          },
        ],
      },
    ]);
    answered("/hpa-exact", deny({ message: "should not be called" }));
    await run(
      exact,
      t.attributes({
        operation: "CREATE",
        resource: "horizontalpodautoscalers",
        group: autoscaling,
        version: "v2",
        object: hpa,
      }),
    );
    assert.equal(p.calls("/hpa-exact").length, 0);
  });
});
