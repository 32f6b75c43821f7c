// The bootstrap token cleaner against a real gateway process, as an API client with the admin's
// credentials, next to the gateway's own (which runs only with bootstrap tokens enabled). Its clock
// is the test's: a token expires when the test moves the clock past it, never while a request is
// on its way, and the cleaner's reads of each Secret show what it has looked at since.
import assert from "node:assert/strict";
import { rm } from "node:fs/promises";
import { after, before, describe, it } from "node:test";
import { naming } from "../../../backends/naming/index.ts";
import { type GatewayProcess, startGateway } from "../../../test/support/gateway-process.ts";
import { eventually } from "../../../test/support/watch.ts";
import { ApiClient, type ApiReply } from "../../client/index.ts";
import { ControllerClient } from "../client.ts";
import { BootstrapTokenCleaner } from "./token-cleaner.ts";

const names = naming("cluster");
const NS = names.systemNamespace;
const SECRETS = `/api/v1/namespaces/${NS}/secrets`;

const HOUR = 3_600_000;

/** The admin's client, counting GETs by path: the cleaner reads a Secret afresh on each look. */
class CountingClient extends ControllerClient {
  readonly gets = new Map<string, number>();
  override call(method: string, path: string, body?: unknown, contentType?: string): Promise<ApiReply> {
    if (method === "GET") this.gets.set(path, (this.gets.get(path) ?? 0) + 1);
    return super.call(method, path, body, contentType);
  }
}

let gw: GatewayProcess;
let client: ControllerClient;
let cleanerClient: CountingClient;
let clock = Date.now();
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
const looks = (name: string) => cleanerClient.gets.get(`${SECRETS}/${name}`) ?? 0;

before(async () => {
  gw = await startGateway();
  client = ControllerClient.fromKubeconfig(gw.kubeconfig);
  // Already expired before the cleaner starts: removed by its first list.
  await create("bootstrap-token-aaaaaa", { "token-id": "aaaaaa", expiration: "2000-01-01T00:00:00Z" });
  cleanerClient = new CountingClient(ApiClient.fromKubeconfig(gw.kubeconfig));
  cleaner = new BootstrapTokenCleaner(
    cleanerClient,
    names,
    (err, context) => errors.push(`${context}: ${err}`),
    { recheckMs: 50, now: () => clock },
  );
  run = cleaner.run(stop.signal);
  await eventually(() => cleaner.synced, 10_000, "cleaner sync");
});

after(async () => {
  stop.abort();
  await run;
  await client?.close();
  await cleanerClient?.close();
  await gw?.stop();
  if (gw) await rm(gw.dataDir, { recursive: true, force: true });
  assert.deepEqual(errors, []);
});

describe("bootstrap token cleaner", () => {
  it("deletes tokens that expired before it started and ones that expire while it runs", async () => {
    await eventually(async () => !(await exists("bootstrap-token-aaaaaa")), 10_000, "the old token gone");
    await create("bootstrap-token-bbbbbb", { "token-id": "bbbbbb", expiration: "2001-01-01T00:00:00+02:00" });
    await create("bootstrap-token-cccccc", { "token-id": "cccccc", expiration: "not a time" });
    await create("bootstrap-token-dddddd", { "token-id": "dddddd", expiration: rfc3339(clock + HOUR) });
    for (const name of ["bootstrap-token-bbbbbb", "bootstrap-token-cccccc"]) {
      await eventually(async () => !(await exists(name)), 15_000, `${name} gone`);
    }
    // Looked at twice (the second look comes after the first decided to wait), and kept.
    await eventually(() => looks("bootstrap-token-dddddd") >= 2, 15_000, "the cleaner watching dddddd");
    assert.ok(await exists("bootstrap-token-dddddd"));
    clock += 2 * HOUR;
    await eventually(async () => !(await exists("bootstrap-token-dddddd")), 15_000, "dddddd gone");
  });

  it("keeps tokens without an expiration, tokens not yet expired, and other Secrets", async () => {
    await create("bootstrap-token-eeeeee", { "token-id": "eeeeee" });
    await create("bootstrap-token-ffffff", {
      "token-id": "ffffff",
      expiration: rfc3339(clock + HOUR),
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
    await create("bootstrap-token-hhhhhh", { "token-id": "hhhhhh", expiration: rfc3339(clock + HOUR) });
    const current = (await client.call("GET", `${SECRETS}/bootstrap-token-hhhhhh`)).body;
    const put = await client.call("PUT", `${SECRETS}/bootstrap-token-hhhhhh`, {
      ...current,
      data: { ...current.data, expiration: b64(rfc3339(clock + 3 * HOUR)) },
    });
    assert.equal(put.status, 200);
    await create("bootstrap-token-iiiiii", { "token-id": "iiiiii", expiration: rfc3339(clock + 1.5 * HOUR) });
    // Past the first expiration and the marker's, not the extended one.
    const before = looks("bootstrap-token-hhhhhh");
    clock += 2 * HOUR;
    await eventually(async () => !(await exists("bootstrap-token-iiiiii")), 15_000, "the marker gone");
    // Read twice since the clock moved: the first read's decision was made, and it kept the token.
    await eventually(() => looks("bootstrap-token-hhhhhh") >= before + 2, 15_000, "hhhhhh read again");
    assert.ok(await exists("bootstrap-token-hhhhhh"), "the extended token stays");
  });
});
