// OpenAPI of extension API servers through the real gateway, in both naming presets: a second
// gateway is the extension (as in aggregation.test.ts), serving a group from a CRD whose schema
// describes its fields, behind an APIService. The gateway's /openapi/v2 (JSON and protobuf) holds
// that group version's paths and definitions and nothing else of the extension, /openapi/v3 lists
// it and serves the extension's document, and kubectl 1.27 (v2) and 1.33 (v3) explain its fields.
// With the kubernetes preset, an HTTPS peer started here offers a spec without fieldValidation, so
// kubectl apply checks its objects against the merged schema; then it answers garbage, an
// oversized answer or nothing: the gateway keeps the last good spec, its own documents keep
// answering, and other extensions still refresh.
import assert from "node:assert/strict";
import { once } from "node:events";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import type { IncomingMessage, ServerResponse } from "node:http";
import { createServer as createHttpsServer, type Server } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { setTimeout as delay } from "node:timers/promises";
import { load } from "js-yaml";
import { Agent, request } from "undici";
import { naming } from "../backends/naming/index.ts";
import { decodeV2Document } from "../gateway/openapi/v2-proto.ts";
import { createAuthority, issueCertificate } from "../gateway/pki/certificates.ts";
import { ApiClient } from "./support/api-client.ts";
import { createServedCrd } from "./support/custom-resources.ts";
import { apiService, localService, startExtensionGateway } from "./support/extension-servers.ts";
import {
  type GatewayProcess,
  kubectlRun,
  NO_KUBECTL,
  oldestAndNewestKubectl,
  startGateway,
} from "./support/gateway-process.ts";
import { eventually } from "./support/watch.ts";

const GROUP = "ext.example.com";
/** A group the extension serves too, but no APIService hands to it. */
const OTHER = "other.example.com";
const FLAKY = "flaky.example.com";
const V2_PB = "application/com.github.proto-openapi.spec.v2.v1.0+protobuf";
const SIZE_DESCRIPTION = "How many parts the widget has.";
const WIDGET_SCHEMA = {
  type: "object",
  properties: {
    spec: {
      type: "object",
      description: "What the widget should be.",
      properties: { size: { type: "integer", description: SIZE_DESCRIPTION } },
    },
  },
};

type Json = Record<string, unknown>;

interface Kubeconfig {
  clusters: { cluster: Record<string, string> }[];
  users: { user: Record<string, string> }[];
}

/** `/openapi/v2` as protobuf bytes (the API client reads text), with the kubeconfig's credentials. */
async function v2Protobuf(kubeconfig: string): Promise<{ status: number; type: unknown; bytes: Buffer }> {
  const config = load(await readFile(kubeconfig, "utf8")) as Kubeconfig;
  const b64 = (s: string | undefined) => Buffer.from(s ?? "", "base64").toString("utf8");
  const cluster = config.clusters[0]?.cluster ?? {};
  const user = config.users[0]?.user ?? {};
  const agent = new Agent({
    connect: {
      ca: b64(cluster["certificate-authority-data"]),
      cert: b64(user["client-certificate-data"]),
      key: b64(user["client-key-data"]),
    },
  });
  try {
    const res = await request(`${cluster.server}/openapi/v2`, {
      headers: { accept: V2_PB },
      dispatcher: agent,
    });
    const bytes = Buffer.from(await res.body.arrayBuffer());
    return { status: res.statusCode, type: res.headers["content-type"], bytes };
  } finally {
    await agent.close();
  }
}

/** Polls the gateway's documents gently: they are large. */
async function until(check: () => Promise<boolean>, what: string, timeoutMs = 30_000): Promise<void> {
  await eventually(
    async () => {
      if (await check()) return true;
      await delay(100);
      return false;
    },
    timeoutMs,
    what,
  );
}

for (const preset of ["kubernetes", "cluster"] as const) {
  const n = naming(preset);
  const APIREG = n.group("apiregistration");

  describe(`OpenAPI of an extension API server (${preset} naming)`, () => {
    let dir: string;
    let main: GatewayProcess;
    let ext: GatewayProcess;
    let admin: ApiClient;
    let extAdmin: ApiClient;

    const v2 = async (): Promise<{ paths: Record<string, Json>; definitions: Record<string, Json> }> => {
      const res = await admin.call("GET", "/openapi/v2", { accept: "application/json" });
      assert.equal(res.status, 200, res.text.slice(0, 300));
      return res.body;
    };
    const v3Index = async (): Promise<Record<string, { serverRelativeURL: string }>> => {
      const res = await admin.call("GET", "/openapi/v3");
      assert.equal(res.status, 200, res.text.slice(0, 300));
      return res.body.paths;
    };

    const apiServiceFor = (group: string, service: string, caPem: string, port: number, priority = 15) =>
      apiService(admin, {
        apiregistration: APIREG,
        group,
        namespace: "ext-system",
        service,
        port,
        caPem,
        versionPriority: priority,
      });

    /** Changes an APIService's spec, which has the gateway fetch its specs again. */
    async function touch(group: string, versionPriority: number): Promise<void> {
      const patched = await admin.call("PATCH", `/apis/${APIREG}/v1/apiservices/v1.${group}`, {
        body: { spec: { versionPriority } },
        contentType: "application/merge-patch+json",
      });
      assert.equal(patched.status, 200, patched.text);
    }

    const externalService = (name: string) => localService(admin, "ext-system", name);

    before(async () => {
      dir = await mkdtemp(join(tmpdir(), "cg-aggregation-openapi-"));
      main = await startGateway([`--api-naming=${preset}`]);
      admin = new ApiClient(main.kubeconfig);
      ext = await startExtensionGateway(main, { preset, authorizationGroup: n.group("authorization"), dir });
      extAdmin = new ApiClient(ext.kubeconfig);
      const apiextensions = n.group("apiextensions");
      await createServedCrd(extAdmin, { apiextensions, group: GROUP, kind: "Widget", schema: WIDGET_SCHEMA });
      await createServedCrd(extAdmin, { apiextensions, group: OTHER, kind: "Gadget", schema: WIDGET_SCHEMA });

      const ns = await admin.call("POST", "/api/v1/namespaces", {
        body: { metadata: { name: "ext-system" } },
      });
      assert.equal(ns.status, 201, ns.text);
      await externalService("ext");
      await apiServiceFor(GROUP, "ext", await readFile(join(ext.dataDir, "pki", "ca.crt"), "utf8"), ext.port);
      await until(async () => `apis/${GROUP}/v1` in (await v3Index()), "the extension's OpenAPI");
    });

    after(async () => {
      await admin?.close();
      await extAdmin?.close();
      for (const gw of [main, ext]) {
        await gw?.stop();
        if (gw) await rm(gw.dataDir, { recursive: true, force: true });
      }
      if (dir) await rm(dir, { recursive: true, force: true });
    });

    it("merges the group version's paths and definitions into /openapi/v2, and nothing else of the extension", async () => {
      const doc = await v2();
      const widgets = `/apis/${GROUP}/v1/namespaces/{namespace}/widgets`;
      assert.ok(doc.paths[widgets], "the extension's paths");
      assert.ok(doc.paths[`${widgets}/{name}`]);
      const patch = doc.paths[`${widgets}/{name}`]?.patch as { parameters: { name: string }[] };
      assert.ok(patch.parameters.some((p) => p.name === "fieldValidation"));
      const widget = doc.definitions["com.example.ext.v1.Widget"] as {
        properties: { spec: { properties: { size: { description: string } } } };
      };
      assert.equal(widget.properties.spec.properties.size.description, SIZE_DESCRIPTION);
      assert.ok(!Object.keys(doc.paths).some((p) => p.startsWith(`/apis/${OTHER}/`)), "no other group");
      assert.equal(doc.definitions["com.example.other.v1.Gadget"], undefined);
      // The gateway's own paths are still there, once.
      assert.ok(doc.paths["/api/v1/namespaces/{namespace}/configmaps"]);

      const pb = await v2Protobuf(main.kubeconfig);
      assert.equal(pb.status, 200);
      assert.equal(pb.type, V2_PB);
      const decoded = decodeV2Document(pb.bytes) as {
        definitions: { additional_properties: { name: string }[] };
      };
      assert.ok(
        decoded.definitions.additional_properties.some((d) => d.name === "com.example.ext.v1.Widget"),
      );
    });

    it("lists the group version in /openapi/v3 and serves the extension's document", async () => {
      const index = await v3Index();
      const url = index[`apis/${GROUP}/v1`]?.serverRelativeURL ?? "";
      assert.match(
        url,
        new RegExp(`^/openapi/v3/apis/${GROUP.replaceAll(".", "\\.")}/v1\\?hash=[0-9A-F]{128}$`),
      );
      assert.equal(index[`apis/${OTHER}/v1`], undefined);
      const res = await admin.call("GET", url);
      assert.equal(res.status, 200);
      assert.equal(res.headers["cache-control"], "public, immutable");
      const theirs = await extAdmin.call("GET", `/openapi/v3/apis/${GROUP}/v1`);
      assert.equal(res.text, theirs.text, "the extension's own document");
      assert.ok(res.body.components.schemas["com.example.ext.v1.Widget"]);
      const stale = await admin.call("GET", `/openapi/v3/apis/${GROUP}/v1?hash=0`);
      assert.equal(stale.status, 301);
      assert.equal(stale.headers.location, url);
    });

    it("lets kubectl explain the extension's resources (1.27 reads v2, 1.33 v3)", async () => {
      const binaries = oldestAndNewestKubectl();
      assert.ok(binaries.length > 0, NO_KUBECTL);
      for (const kubectl of binaries) {
        const cache = join(dir, `cache-${binaries.indexOf(kubectl)}`);
        const out = await kubectlRun(kubectl, main.kubeconfig, [
          "explain",
          "widgets.spec.size",
          `--cache-dir=${cache}`,
        ]);
        assert.equal(out.code, 0, `${kubectl}: ${out.stderr}`);
        assert.match(out.stdout, new RegExp(SIZE_DESCRIPTION.replaceAll(".", "\\.")), kubectl);
      }
    });

    if (preset === "kubernetes") {
      describe("an extension whose specs go bad", () => {
        type Mode = "good" | "garbage" | "huge" | "hang";
        let mode: Mode = "good";
        let peer: Server;
        const seen: { url: string; mode: Mode; user: string; groups: string }[] = [];
        const goodV3 = JSON.stringify({
          openapi: "3.0.0",
          info: { title: "flaky", version: "v1" },
          paths: { [`/apis/${FLAKY}/v1/things`]: {} },
        });
        const goodIndex = JSON.stringify({
          paths: { [`apis/${FLAKY}/v1`]: { serverRelativeURL: `/openapi/v3/apis/${FLAKY}/v1?hash=GOOD` } },
        });
        const goodV2 = JSON.stringify({
          swagger: "2.0",
          info: { title: "flaky", version: "v1" },
          paths: {
            [`/apis/${FLAKY}/v1/things`]: {
              get: {
                operationId: "listThings",
                responses: {
                  "200": { description: "OK", schema: { $ref: "#/definitions/com.example.flaky.v1.Thing" } },
                },
              },
            },
          },
          definitions: {
            "com.example.flaky.v1.Thing": {
              description: "A good thing.",
              type: "object",
              properties: {
                apiVersion: { type: "string" },
                kind: { type: "string" },
                metadata: { type: "object" },
                spec: { type: "object", properties: { size: { type: "integer" } } },
              },
              "x-kubernetes-group-version-kind": [{ group: FLAKY, kind: "Thing", version: "v1" }],
            },
          },
        });

        function answer(req: IncomingMessage, res: ServerResponse): void {
          const url = req.url ?? "";
          seen.push({
            url,
            mode,
            user: String(req.headers["x-remote-user"]),
            groups: String(req.headers["x-remote-group"]),
          });
          res.on("error", () => {});
          const json = (body: string) => {
            res.writeHead(200, { "content-type": "application/json" });
            res.end(body);
          };
          if (url === `/apis/${FLAKY}/v1`) {
            json(
              JSON.stringify({
                kind: "APIResourceList",
                apiVersion: "v1",
                groupVersion: `${FLAKY}/v1`,
                resources: [
                  {
                    name: "things",
                    singularName: "thing",
                    namespaced: true,
                    kind: "Thing",
                    verbs: ["create", "get", "list", "patch"],
                  },
                ],
              }),
            );
            return;
          }
          if (!url.startsWith("/openapi/")) {
            res.writeHead(404).end();
            return;
          }
          if (mode === "hang") return;
          if (mode === "huge" && url === "/openapi/v2") {
            // More than the gateway reads of an answer; it stops reading and closes.
            res.writeHead(200, { "content-type": "application/json" });
            res.write('{"swagger":"2.0","definitions":{"x":{"description":"');
            const chunk = "x".repeat(1024 * 1024);
            const more = (left: number): void => {
              if (left === 0 || res.destroyed) {
                res.end('"}}}');
                return;
              }
              if (res.write(chunk)) more(left - 1);
              else res.once("drain", () => more(left - 1));
            };
            more(20);
            return;
          }
          const bodies: Record<string, string> = {
            "/openapi/v2": goodV2,
            "/openapi/v3": goodIndex,
            [`/openapi/v3/apis/${FLAKY}/v1?hash=GOOD`]: goodV3,
          };
          const body = mode === "garbage" ? "<html>{{ not a spec" : bodies[url];
          if (body !== undefined) {
            json(body);
            return;
          }
          res.writeHead(404).end();
        }

        const hasGoodThing = async () =>
          ((await v2()).definitions["com.example.flaky.v1.Thing"] as { description?: string } | undefined)
            ?.description === "A good thing.";
        const flakyDocument = async () => {
          const url = (await v3Index())[`apis/${FLAKY}/v1`]?.serverRelativeURL;
          return url === undefined ? undefined : (await admin.call("GET", url)).text;
        };
        /** Waits until the gateway asked for the v3 index in `m`, so it is done with that v2 answer. */
        const answeredIn = (m: Mode, url: string) =>
          until(
            async () => seen.some((s) => s.mode === m && s.url === url),
            `a request for ${url} in mode ${m}`,
          );

        before(async () => {
          const ca = await createAuthority("flaky-ca");
          const leaf = await issueCertificate(ca, {
            commonName: "flaky",
            usage: "server",
            altNames: ["flaky.ext-system.svc"],
          });
          peer = createHttpsServer({ cert: leaf.certPem, key: leaf.keyPem }, answer);
          peer.listen(0, "127.0.0.1");
          await once(peer, "listening");
          await externalService("flaky");
          await apiServiceFor(FLAKY, "flaky", ca.certPem, (peer.address() as { port: number }).port, 1);
          await until(hasGoodThing, "the peer's good spec");
          assert.equal(await flakyDocument(), goodV3);
        });

        after(() => {
          peer?.closeAllConnections();
          peer?.close();
        });

        it("fetches the specs as the aggregator, over the proxy", () => {
          const fetched = seen.filter((s) => s.url.startsWith("/openapi/"));
          assert.ok(fetched.length >= 3);
          for (const s of fetched) {
            assert.equal(s.user, "system:kube-aggregator");
            assert.equal(s.groups, "system:masters");
          }
        });

        it("has kubectl apply validate the extension's objects against the merged schema", async () => {
          // This peer's documents offer no fieldValidation, so kubectl checks objects itself, against
          // the schema /openapi/v2 gives their kind (without it, it would send them on unchecked).
          const binaries = oldestAndNewestKubectl();
          assert.ok(binaries.length > 0, NO_KUBECTL);
          for (const [i, kubectl] of binaries.entries()) {
            const before = seen.length;
            const out = await kubectlRun(
              kubectl,
              main.kubeconfig,
              ["apply", "-f", "-", `--cache-dir=${join(dir, `cache-apply-${i}`)}`],
              `apiVersion: ${FLAKY}/v1\nkind: Thing\nmetadata: {name: t, namespace: default}\nspec: {size: big}\n`,
            );
            assert.notEqual(out.code, 0, `${kubectl}: ${out.stdout}`);
            assert.match(
              out.stderr,
              /ValidationError\(Thing\.spec\.size\): invalid type for com\.example\.flaky\.v1\.Thing\.spec\.size: got "string", expected "integer"/,
              kubectl,
            );
            assert.deepEqual(
              seen.slice(before).filter((s) => s.url.includes("/things")),
              [],
              "refused before any request for it",
            );
          }
        });

        for (const [m, priority] of [
          ["garbage", 2],
          ["huge", 3],
        ] as const) {
          it(`keeps the last good spec when the extension answers ${m === "huge" ? "more than 16 MiB" : "garbage"}`, async () => {
            mode = m;
            await touch(FLAKY, priority);
            await answeredIn(m, "/openapi/v3");
            assert.equal(await hasGoodThing(), true);
            assert.equal(await flakyDocument(), goodV3);
            assert.equal((await v2Protobuf(main.kubeconfig)).status, 200);
          });
        }

        it("keeps serving its own documents while an extension hangs, and other extensions still refresh", async () => {
          mode = "hang";
          await touch(FLAKY, 4);
          await answeredIn("hang", "/openapi/v2");
          assert.equal(await hasGoodThing(), true);
          assert.ok(`apis/${FLAKY}/v1` in (await v3Index()));

          // The other extension's spec changes and its APIService with it: the new spec arrives.
          const crd = `/apis/${n.group("apiextensions")}/v1/customresourcedefinitions/widgets.${GROUP}`;
          const patched = await extAdmin.call("PATCH", crd, {
            body: [
              {
                op: "replace",
                path: "/spec/versions/0/schema/openAPIV3Schema/properties/spec/properties/size/description",
                value: "Parts, counted again.",
              },
            ],
            contentType: "application/json-patch+json",
          });
          assert.equal(patched.status, 200, patched.text);
          await until(async () => {
            const theirs = await extAdmin.call("GET", "/openapi/v2");
            return theirs.text.includes("Parts, counted again.");
          }, "the extension's new spec");
          await touch(GROUP, 16);
          await until(
            async () =>
              JSON.stringify((await v2()).definitions["com.example.ext.v1.Widget"]).includes(
                "Parts, counted again.",
              ),
            "the new spec merged",
          );
          await until(async () => {
            const url = (await v3Index())[`apis/${GROUP}/v1`]?.serverRelativeURL;
            return url !== undefined && (await admin.call("GET", url)).text.includes("Parts, counted again.");
          }, "the new v3 document");
        });

        it("drops an extension's specs with its APIService", async () => {
          assert.ok(`apis/${FLAKY}/v1` in (await v3Index()));
          const deleted = await admin.call("DELETE", `/apis/${APIREG}/v1/apiservices/v1.${FLAKY}`);
          assert.equal(deleted.status, 200, deleted.text);
          await until(async () => !(`apis/${FLAKY}/v1` in (await v3Index())), "the group version unlisted");
          assert.equal((await v2()).definitions["com.example.flaky.v1.Thing"], undefined);
          assert.equal((await admin.call("GET", `/openapi/v3/apis/${FLAKY}/v1`)).status, 404);
        });
      });
    }
  });
}
