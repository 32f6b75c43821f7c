// Legal but pathological requests against the real server over HTTPS: each gets a bounded answer
// and the server keeps answering /readyz meanwhile. A custom resource whose list items fall
// outside a large enum (an error per item, each naming the enum), a server-side apply whose
// thousands of fields all conflict, and webhook denials with status codes fastify refuses.
// How long /readyz waited is printed as a diagnostic, never asserted.
import assert from "node:assert/strict";
import { after, before, describe, it, type TestContext } from "node:test";
import { naming } from "../backends/naming/index.ts";
import { ERROR_LIMITS } from "../backends/registry/index.ts";
import { b64, type HttpsPeer, sendJson, startHttpsPeer } from "../plugins/client/testing/index.ts";
import type { ApiResponse } from "./support/api-client.ts";
import { createServedCrd } from "./support/custom-resources.ts";
import { fileGateway } from "./support/file-gateways.ts";
import { eventually } from "./support/watch.ts";

type Obj = Record<string, unknown>;

const names = naming();
const GROUP = "bombs.example.com";
const APPLY = "application/apply-patch+yaml";

const file = fileGateway();

/**
 * Sends `request` while /readyz is asked in a loop; every /readyz must answer 200, and the
 * longest wait goes to the test's diagnostics.
 */
async function whileReady(t: TestContext, request: () => Promise<ApiResponse>): Promise<ApiResponse> {
  let done = false;
  let longest = 0;
  let asked = 0;
  const probe = (async () => {
    while (!done) {
      const start = performance.now();
      const ready = await file.api.call("GET", "/readyz");
      longest = Math.max(longest, performance.now() - start);
      asked++;
      assert.equal(ready.status, 200, ready.text);
      await new Promise((r) => setImmediate(r));
    }
  })();
  const start = performance.now();
  try {
    return await request();
  } finally {
    const took = performance.now() - start;
    done = true;
    await probe;
    t.diagnostic(
      `request ${took.toFixed(0)} ms; /readyz asked ${asked} times, longest ${longest.toFixed(0)} ms`,
    );
  }
}

describe("an error per item of a large enum", () => {
  for (const [values, items] of [
    [1_000, 60_000],
    [100_000, 20_000],
  ] as const) {
    it(`${values} values, ${items} bad items: a bounded 422, /readyz answered throughout`, async (t) => {
      const plural = `enums${values}`;
      const path = await createServedCrd(file.api, {
        apiextensions: names.group("apiextensions"),
        group: GROUP,
        kind: `Enum${values}`,
        plural,
        schema: {
          type: "object",
          properties: {
            spec: {
              type: "object",
              properties: {
                list: {
                  type: "array",
                  items: { type: "string", enum: Array.from({ length: values }, (_, i) => `v${i}`) },
                },
              },
            },
          },
        },
      });
      const body = {
        apiVersion: `${GROUP}/v1`,
        kind: `Enum${values}`,
        metadata: { name: "bomb" },
        spec: { list: Array.from({ length: items }, () => "x") },
      };
      const res = await whileReady(t, () => file.api.call("POST", path, { body }));
      assert.equal(res.status, 422, res.text.slice(0, 500));
      assert.equal(res.body.reason, "Invalid");
      const causes = res.body.details.causes as { field: string; message: string }[];
      assert.equal(causes.length, ERROR_LIMITS.causes);
      // The walk stopped after ERROR_LIMITS.collected errors and says so first.
      assert.equal(
        causes[0]?.message,
        `Too many: validation stopped after ${ERROR_LIMITS.collected} errors; there may be more`,
      );
      assert.equal(causes[1]?.field, "spec.list[0]");
      const listed = Array.from({ length: ERROR_LIMITS.supportedValues }, (_, i) => `"v${i}"`).join(", ");
      assert.equal(
        causes[1]?.message,
        `Unsupported value: "x": supported values: ${listed}, ... (${values - ERROR_LIMITS.supportedValues} more)`,
      );
      assert.ok(res.body.message.startsWith(`Enum${values}.${GROUP} "bomb" is invalid: [<root>: Too many: `));
      assert.ok(
        res.body.message.endsWith(`, ... (${ERROR_LIMITS.collected + 1 - ERROR_LIMITS.causes} more errors)]`),
      );
      assert.ok(res.text.length < 4 * ERROR_LIMITS.listChars, `answer of ${res.text.length} characters`);
      assert.equal((await file.api.call("GET", `${path}/bomb`)).status, 404, "nothing was stored");
    });
  }
});

describe("a server-side apply whose every field conflicts", () => {
  it("is a 409 listing the first conflicts and counting all, /readyz answered throughout", async (t) => {
    const n = 29_000;
    const path = "/api/v1/namespaces/default/configmaps";
    const data = (value: string) =>
      Object.fromEntries(Array.from({ length: n }, (_, i) => [`key${i}`, value]));
    const made = await file.api.call("POST", `${path}?fieldManager=owner`, {
      body: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "wide" }, data: data("a") },
    });
    assert.equal(made.status, 201, made.text.slice(0, 500));
    const res = await whileReady(t, () =>
      file.api.call("PATCH", `${path}/wide?fieldManager=applier`, {
        raw: JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", data: data("b") }),
        contentType: APPLY,
      }),
    );
    assert.equal(res.status, 409, res.text.slice(0, 500));
    assert.equal(res.body.reason, "Conflict");
    assert.ok(
      res.body.message.startsWith(
        `Apply failed with ${n} conflicts: conflicts with "owner" using v1:\n- .data.`,
      ),
      res.body.message.slice(0, 200),
    );
    assert.ok(res.body.message.endsWith(`\n... (${n - ERROR_LIMITS.causes} more conflicts)`));
    assert.equal(res.body.details.causes.length, ERROR_LIMITS.causes);
    assert.deepEqual(res.body.details.causes[0], {
      reason: "FieldManagerConflict",
      message: 'conflict with "owner" using v1',
      field: ".data.key0",
    });
  });
});

describe("a webhook denial with a status code fastify refuses", () => {
  let peer: HttpsPeer;
  before(async () => {
    // Denies every pod with the code named by the path, /650 or /1000.
    peer = await startHttpsPeer((req, res) => {
      const review = JSON.parse(req.body) as { apiVersion: string; request: Obj };
      const code = Number(req.url.split("?")[0]?.slice(1));
      sendJson(res, 200, {
        apiVersion: review.apiVersion,
        kind: "AdmissionReview",
        response: {
          uid: review.request.uid,
          allowed: false,
          status: { code, reason: "Teapot", message: `no pods today (${code})` },
        },
      });
    });
  });
  after(() => peer?.close());

  for (const [code, expected, reason] of [
    [650, 650, "Teapot"],
    [1000, 500, "InternalError"],
  ] as const) {
    it(`${code}: answered ${expected} with the webhook's message`, async () => {
      const config = await file.api.call(
        "POST",
        `/apis/${names.group("admissionregistration")}/v1/validatingwebhookconfigurations`,
        {
          body: {
            metadata: { name: `deny-${code}` },
            webhooks: [
              {
                name: `deny-${code}.example.com`,
                clientConfig: { url: `${peer.url}/${code}`, caBundle: b64(peer.serverCa.certPem) },
                rules: [
                  { operations: ["CREATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["pods"] },
                ],
                objectSelector: { matchLabels: { denied: String(code) } },
                sideEffects: "None",
                admissionReviewVersions: ["v1"],
              },
            ],
          },
        },
      );
      assert.equal(config.status, 201, config.text);
      const pod = {
        apiVersion: "v1",
        kind: "Pod",
        metadata: { generateName: "p-", labels: { denied: String(code) } },
        spec: { containers: [{ name: "c", image: "nginx" }] },
      };
      let res: ApiResponse | undefined;
      // The webhook takes effect once the server has seen its configuration.
      await eventually(
        async () => {
          res = await file.api.call("POST", "/api/v1/namespaces/default/pods", { body: pod });
          return res.status !== 201;
        },
        20_000,
        "the webhook to be called",
      );
      assert.equal(res?.status, expected, res?.text);
      assert.equal(res?.body.code, expected);
      assert.equal(res?.body.reason, reason);
      assert.equal(
        res?.body.message,
        `admission webhook "deny-${code}.example.com" denied the request: no pods today (${code})`,
      );
    });
  }
});
