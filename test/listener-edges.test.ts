// Requests that never reach a route, over real sockets to a real gateway: plain HTTP on the TLS
// port gets Go's 400 text; a request line and headers up to upstream's 1 MiB are served (kubectl
// with a 2,500-value label selector); past it the answer is a 431 Status, and a request that does
// not parse gets a 400 Status.
import assert from "node:assert/strict";
import { once } from "node:events";
import { rm } from "node:fs/promises";
import { connect as netConnect } from "node:net";
import { after, before, describe, it } from "node:test";
import { connect as tlsConnect } from "node:tls";
import { ApiClient } from "./support/api-client.ts";
import { type GatewayProcess, kubectlRun, kubectlVersions, startGateway } from "./support/gateway-process.ts";

const MIB = 1024 * 1024;
const GO_PLAIN_HTTP_ANSWER =
  "HTTP/1.0 400 Bad Request\r\n\r\nClient sent an HTTP request to an HTTPS server.\n";

let gw: GatewayProcess;
let api: ApiClient;
before(async () => {
  gw = await startGateway(["--storage-backend=memory"]);
  api = new ApiClient(gw.kubeconfig);
});
after(async () => {
  await api?.close();
  await gw?.stop();
  if (gw) await rm(gw.dataDir, { recursive: true, force: true });
});

/** Writes `parts` (one write each) on a plain TCP connection and returns all it reads until close. */
async function rawExchange(port: number, parts: string[]): Promise<string> {
  const socket = netConnect(port, "127.0.0.1");
  await once(socket, "connect");
  let text = "";
  socket.on("data", (d: Buffer) => {
    text += d.toString("latin1");
  });
  socket.on("error", () => {});
  for (const part of parts) {
    socket.write(part);
    // Let each part leave as its own segment, as a client typing or a slow link would send it.
    await new Promise((resolve) => setImmediate(resolve));
  }
  await once(socket, "close");
  return text;
}

/** Sends `request` over TLS without credentials and returns the raw response read until close. */
async function tlsExchange(port: number, request: string): Promise<string> {
  const socket = tlsConnect({ port, host: "127.0.0.1", rejectUnauthorized: false });
  await once(socket, "secureConnect");
  let text = "";
  socket.on("data", (d: Buffer) => {
    text += d.toString("utf8");
  });
  socket.on("error", () => {});
  socket.end(request);
  await once(socket, "close");
  return text;
}

describe("the TLS listener", () => {
  it("answers plain HTTP with Go's 400 text, also when the first bytes arrive apart", async () => {
    for (const parts of [
      ["GET /version HTTP/1.1\r\nHost: x\r\n\r\n"],
      ["GE", "T /api HTTP/1.1\r\nHost: x\r\n\r\n"],
      ["POST /api/v1/namespaces HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n"],
      ["OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n"],
    ]) {
      assert.equal(await rawExchange(gw.port, parts), GO_PLAIN_HTTP_ANSWER, parts.join(""));
    }
    // Go answers only the five starts above; anything else that is not TLS is closed unanswered.
    assert.equal(await rawExchange(gw.port, ["DELETE /api HTTP/1.1\r\nHost: x\r\n\r\n"]), "");
    assert.equal(await rawExchange(gw.port, ["hello"]), "");
    // TLS clients are served as before on the same port.
    assert.equal((await api.call("GET", "/version")).status, 200);
  });

  it("serves kubectl a 2,500-value label selector (a request line past 16 KiB)", {
    skip: kubectlVersions().length === 0 && "kubectl not installed",
  }, async () => {
    const bin = kubectlVersions().at(-1) as string;
    for (const idx of ["7", "2600"]) {
      const res = await api.call("POST", "/api/v1/namespaces/default/configmaps", {
        body: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: `idx-${idx}`, labels: { idx } } },
      });
      assert.equal(res.status, 201, res.text);
    }
    const values = Array.from({ length: 2500 }, (_, i) => String(i + 1)).join(",");
    assert.ok(encodeURIComponent(values).length > 16 * 1024);
    const run = await kubectlRun(bin, gw.kubeconfig, [
      "get",
      "configmaps",
      "-n",
      "default",
      "-l",
      `idx in (${values})`,
      "-o",
      "name",
    ]);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout.trim(), "configmap/idx-7");
  });

  it("takes up to 1 MiB of request line and headers and answers more with a 431 Status", async () => {
    const under = await api.call("GET", "/version", { headers: { "x-pad": "a".repeat(MIB - 8 * 1024) } });
    assert.equal(under.status, 200, under.text);

    for (const size of [MIB, 8 * MIB]) {
      const over = await api.call("GET", "/version", { headers: { "x-pad": "a".repeat(size) } });
      assert.equal(over.status, 431, over.text);
      assert.equal(over.headers["content-type"], "application/json");
      assert.deepEqual(over.body, {
        kind: "Status",
        apiVersion: "v1",
        metadata: {},
        status: "Failure",
        message: `Request header fields too large: limit is ${MIB}`,
        reason: "BadRequest",
        code: 431,
      });
    }
    // The connection that was refused is gone, the server is not.
    assert.equal((await api.call("GET", "/version")).status, 200);
  });

  it("answers a request that does not parse with a 400 Status", async () => {
    const text = await tlsExchange(gw.port, "GET /version HTTP/1.1\r\nHost: x\r\nno colon here\r\n\r\n");
    assert.match(text, /^HTTP\/1\.1 400 Bad Request\r\n/);
    const body = JSON.parse(text.slice(text.indexOf("\r\n\r\n") + 4));
    assert.equal(body.kind, "Status");
    assert.equal(body.code, 400);
    assert.equal(body.reason, "BadRequest");
    assert.match(body.message, /^malformed HTTP request: /);
  });
});
