// The bootstrap token cleaner against a real gateway process, as an API client with the admin's
// credentials, next to the gateway's own (which runs only with bootstrap tokens enabled).
import assert from "node:assert/strict";
import { rm } from "node:fs/promises";
import { after, before, describe, it } from "node:test";
import { naming } from "../../../backends/naming/index.ts";
import { type GatewayProcess, startGateway } from "../../../test/support/gateway-process.ts";
import { eventually } from "../../../test/support/watch.ts";
import { ControllerClient } from "../client.ts";
import { BootstrapTokenCleaner } from "./token-cleaner.ts";

const names = naming("cluster");
const NS = names.systemNamespace;
const SECRETS = `/api/v1/namespaces/${NS}/secrets`;

let gw: GatewayProcess;
let client: ControllerClient;
const stop = new AbortController();
const errors: string[] = [];
let cleaner: BootstrapTokenCleaner;
let run: Promise<void>;

const b64 = (s: string) => Buffer.from(s).toString("base64");
const rfc3339 = (ms: number) => new Date(ms).toISOString().replace(/\.\d+Z$/, "Z");

async function create(name: string, data: Record<string, string>, type = "bootstrap.cluster.io/token") {
  const reply = await client.call("POST", SECRETS, {
    metadata: { name },
    type,
    data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, b64(v)])),
  });
  assert.equal(reply.status, 201, JSON.stringify(reply.body));
}

const exists = async (name: string) => (await client.call("GET", `${SECRETS}/${name}`)).status === 200;

before(async () => {
  gw = await startGateway();
  client = ControllerClient.fromKubeconfig(gw.kubeconfig);
  // Already expired before the cleaner starts: removed by its first list.
  await create("bootstrap-token-aaaaaa", { "token-id": "aaaaaa", expiration: "2000-01-01T00:00:00Z" });
  cleaner = new BootstrapTokenCleaner(client, names, (err, context) => errors.push(`${context}: ${err}`), {
    recheckMs: 200,
  });
  run = cleaner.run(stop.signal);
  await eventually(() => cleaner.synced, 10_000, "cleaner sync");
});

after(async () => {
  stop.abort();
  await run;
  await client?.close();
  await gw?.stop();
  if (gw) await rm(gw.dataDir, { recursive: true, force: true });
  assert.deepEqual(errors, []);
});

describe("bootstrap token cleaner", () => {
  it("deletes tokens that expired before it started and ones that expire while it runs", async () => {
    await eventually(async () => !(await exists("bootstrap-token-aaaaaa")), 10_000, "the old token gone");
    await create("bootstrap-token-bbbbbb", { "token-id": "bbbbbb", expiration: "2001-01-01T00:00:00+02:00" });
    await create("bootstrap-token-cccccc", { "token-id": "cccccc", expiration: "not a time" });
    await create("bootstrap-token-dddddd", { "token-id": "dddddd", expiration: rfc3339(Date.now() + 2_000) });
    for (const name of ["bootstrap-token-bbbbbb", "bootstrap-token-cccccc", "bootstrap-token-dddddd"]) {
      await eventually(async () => !(await exists(name)), 15_000, `${name} gone`);
    }
  });

  it("keeps tokens without an expiration, tokens not yet expired, and other Secrets", async () => {
    await create("bootstrap-token-eeeeee", { "token-id": "eeeeee" });
    await create("bootstrap-token-ffffff", {
      "token-id": "ffffff",
      expiration: rfc3339(Date.now() + 3_600_000),
    });
    await create("expired-but-opaque", { expiration: "2000-01-01T00:00:00Z" }, "Opaque");
    // A token that expires now, created last: once it is gone the cleaner has seen the others.
    await create("bootstrap-token-gggggg", { "token-id": "gggggg", expiration: "2000-01-01T00:00:00Z" });
    await eventually(async () => !(await exists("bootstrap-token-gggggg")), 10_000, "the marker token gone");
    assert.ok(await exists("bootstrap-token-eeeeee"));
    assert.ok(await exists("bootstrap-token-ffffff"));
    assert.ok(await exists("expired-but-opaque"));
  });

  it("reads a token again before deleting it, so an extended expiration keeps it", async () => {
    await create("bootstrap-token-hhhhhh", { "token-id": "hhhhhh", expiration: rfc3339(Date.now() + 1_000) });
    const current = (await client.call("GET", `${SECRETS}/bootstrap-token-hhhhhh`)).body;
    const later = rfc3339(Date.now() + 3_600_000);
    const put = await client.call("PUT", `${SECRETS}/bootstrap-token-hhhhhh`, {
      ...current,
      data: { ...current.data, expiration: b64(later) },
    });
    assert.equal(put.status, 200);
    await create("bootstrap-token-iiiiii", { "token-id": "iiiiii", expiration: rfc3339(Date.now() + 1_500) });
    await eventually(async () => !(await exists("bootstrap-token-iiiiii")), 15_000, "the later marker gone");
    assert.ok(await exists("bootstrap-token-hhhhhh"), "the extended token stays");
  });
});
