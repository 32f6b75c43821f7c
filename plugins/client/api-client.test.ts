import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { after, before, describe, test } from "node:test";
import { naming } from "../../backends/naming/index.ts";
import { createAuthority, issueCertificate } from "../../gateway/pki/certificates.ts";
import { ApiClient, ResponseError } from "./api-client.ts";
import { EXEC_INFO_ENV } from "./exec.ts";
import { b64, type HttpsPeer, kubeconfigYaml, sendJson, startHttpsPeer, tempDir } from "./testing/index.ts";

const dir = tempDir("api-client-test-");
const cluster = naming("cluster");
const V1 = "client.authentication.cluster.io/v1";

/** Who the peer thinks is calling: a verified client certificate, or a header it accepts. */
let accepted: { tokens: Set<string>; basic: Set<string>; cns: Set<string> };
let peer: HttpsPeer;

before(async () => {
  peer = await startHttpsPeer((req, res) => {
    if (req.url.startsWith("/hang")) return; // never answers
    if (req.url.startsWith("/echo")) {
      sendJson(res, 200, { method: req.method, contentType: req.headers["content-type"], body: req.body });
      return;
    }
    const auth = req.headers.authorization ?? "";
    let who: string | undefined;
    if (auth.startsWith("Bearer ") && accepted.tokens.has(auth.slice(7))) who = `token:${auth.slice(7)}`;
    else if (auth.startsWith("Basic ") && accepted.basic.has(Buffer.from(auth.slice(6), "base64").toString()))
      who = `basic:${Buffer.from(auth.slice(6), "base64").toString().split(":")[0]}`;
    else if (!auth && req.clientCN && accepted.cns.has(req.clientCN)) who = `cert:${req.clientCN}`;
    if (!who) {
      sendJson(res, 401, {
        kind: "Status",
        apiVersion: "v1",
        status: "Failure",
        reason: "Unauthorized",
        code: 401,
      });
      return;
    }
    if (req.url.startsWith("/watch")) {
      res.writeHead(200, { "content-type": "application/json" });
      // Lines split across writes, one of them inside a multi-byte character.
      const text = `${JSON.stringify({ type: "ADDED", object: { name: "ü-1" } })}\n\n${JSON.stringify({
        type: "MODIFIED",
        object: { name: "€-2" },
      })}\n`;
      const bytes = Buffer.from(text);
      const cut = bytes.indexOf(Buffer.from("€")) + 1;
      res.write(bytes.subarray(0, 10));
      setTimeout(() => {
        res.write(bytes.subarray(10, cut));
        setTimeout(() => res.write(bytes.subarray(cut)), 20);
      }, 20);
      return; // left open: the client ends it
    }
    sendJson(res, 200, { who });
  });
});

after(async () => {
  await peer.close();
  dir.remove();
});

function reset(): void {
  accepted = { tokens: new Set(), basic: new Set(), cns: new Set() };
}

function client(
  user: Record<string, unknown>,
  clusterExtra: Record<string, unknown> = {},
  name = "kubeconfig",
) {
  const path = dir.write(
    name,
    kubeconfigYaml({ server: peer.url, caPem: peer.serverCa.certPem, user, cluster: clusterExtra }),
  );
  return ApiClient.fromKubeconfig(path, { naming: cluster, stdinIsTerminal: false });
}

describe("ApiClient", () => {
  test("client certificate, and a certificate from another CA is refused", async () => {
    reset();
    accepted.cns.add("alice");
    const good = await peer.clientCertificate("alice");
    const c = client({ "client-certificate-data": b64(good.certPem), "client-key-data": b64(good.keyPem) });
    const reply = await c.call("GET", "/who");
    assert.equal(reply.status, 200);
    assert.deepEqual(reply.body, { who: "cert:alice" });
    assert.match(String(reply.headers["content-type"]), /application\/json/);
    await c.close();
    const stranger = await issueCertificate(await createAuthority("other-ca"), {
      commonName: "alice",
      usage: "client",
    });
    const bad = client({
      "client-certificate-data": b64(stranger.certPem),
      "client-key-data": b64(stranger.keyPem),
    });
    assert.equal((await bad.call("GET", "/who")).status, 401);
    await bad.close();
  });

  test("bearer token, token file, basic auth; wrong ones are refused", async () => {
    reset();
    accepted.tokens.add("good-token");
    accepted.basic.add("carol:pw");
    const token = client({ token: "good-token" });
    assert.deepEqual((await token.call("GET", "/who")).body, { who: "token:good-token" });
    const wrongToken = client({ token: "bad-token" });
    assert.equal((await wrongToken.call("GET", "/who")).status, 401);
    dir.write("token-file", "good-token\n");
    const fromFile = client({ tokenFile: "token-file" });
    assert.deepEqual((await fromFile.call("GET", "/who")).body, { who: "token:good-token" });
    const basic = client({ username: "carol", password: "pw" });
    assert.deepEqual((await basic.call("GET", "/who")).body, { who: "basic:carol" });
    const wrongBasic = client({ username: "carol", password: "nope" });
    assert.equal((await wrongBasic.call("GET", "/who")).status, 401);
    // A header the caller sets itself wins over the configured credential.
    const override = await token.request("GET", "/who", { headers: { Authorization: "Bearer bad-token" } });
    assert.equal(override.status, 401);
    await Promise.all([token, wrongToken, fromFile, basic, wrongBasic].map((c) => c.close()));
  });

  test("server trust: wrong CA fails, insecure-skip-tls-verify and tls-server-name", async () => {
    reset();
    accepted.tokens.add("t");
    const other = await createAuthority("not-the-peer-ca");
    const wrongCa = ApiClient.fromKubeconfig(
      dir.write("wrong-ca", kubeconfigYaml({ server: peer.url, caPem: other.certPem, user: { token: "t" } })),
    );
    await assert.rejects(
      wrongCa.call("GET", "/who"),
      /GET https:\/\/127\.0\.0\.1:\d+\/who: .*(certificate|verify)/i,
    );
    await wrongCa.close();
    const insecure = ApiClient.fromKubeconfig(
      dir.write(
        "insecure",
        kubeconfigYaml({
          server: peer.url,
          user: { token: "t" },
          cluster: { "insecure-skip-tls-verify": true },
        }),
      ),
    );
    assert.equal((await insecure.call("GET", "/who")).status, 200);
    await insecure.close();
    const named = client({ token: "t" }, { "tls-server-name": "localhost" });
    assert.equal((await named.call("GET", "/who")).status, 200);
    await named.close();
    const misnamed = client({ token: "t" }, { "tls-server-name": "elsewhere.example" });
    await assert.rejects(misnamed.call("GET", "/who"), /elsewhere\.example|altnames|Hostname/i);
    await misnamed.close();
  });

  test("JSON bodies and raw bodies with their content type", async () => {
    reset();
    const c = client({});
    const json = await c.call("PATCH", "/echo", { a: 1 }, "application/merge-patch+json");
    assert.deepEqual(json.body, {
      method: "PATCH",
      contentType: "application/merge-patch+json",
      body: '{"a":1}',
    });
    const raw = await c.request("POST", "/echo", { raw: "a: 1\n", contentType: "application/yaml" });
    assert.deepEqual(raw.body, { method: "POST", contentType: "application/yaml", body: "a: 1\n" });
    await c.close();
    // The empty path is the configured URL exactly (webhooks), trailing slash included.
    const hook = ApiClient.fromKubeconfig(
      dir.write("hook", kubeconfigYaml({ server: `${peer.url}/echo/hook/`, caPem: peer.serverCa.certPem })),
    );
    assert.equal((await hook.call("POST", "", {})).status, 200);
    assert.equal(peer.requests.at(-1)?.url, "/echo/hook/");
    await hook.close();
  });

  test("a request timeout aborts a peer that never answers", async () => {
    const c = client({});
    await assert.rejects(c.request("GET", "/hang", { timeoutMs: 200 }), /timed out after 200 ms/);
    await c.destroy();
  });

  test("watch: events across chunk and character boundaries; non-200 is a ResponseError", async () => {
    reset();
    accepted.tokens.add("w");
    const c = client({ token: "w" });
    const ac = new AbortController();
    const seen: unknown[] = [];
    for await (const event of c.watch("/watch", ac.signal)) {
      seen.push(event);
      if (seen.length === 2) ac.abort();
    }
    assert.deepEqual(seen, [
      { type: "ADDED", object: { name: "ü-1" } },
      { type: "MODIFIED", object: { name: "€-2" } },
    ]);
    const refused = client({ token: "nope" });
    await assert.rejects(
      async () => {
        for await (const _ of refused.watch("/watch", new AbortController().signal)) {
          // not reached
        }
      },
      (err: unknown) => err instanceof ResponseError && err.status === 401,
    );
    await Promise.all([c.destroy(), refused.close()]);
  });

  describe("credential plugins", () => {
    test("relative command, cluster info from the kubeconfig, token cached", async () => {
      reset();
      accepted.tokens.add("plugin-token");
      const out = `${dir.path}/relative-input.json`;
      dir.write(
        "bin-plugin.sh",
        `#!/bin/sh\nprintf '%s' "$${EXEC_INFO_ENV}" > "${out}"\necho '{"apiVersion":"${V1}","kind":"ExecCredential","status":{"token":"plugin-token"}}'\n`,
        true,
      );
      const c = client(
        {
          exec: {
            apiVersion: V1,
            command: "./bin-plugin.sh",
            interactiveMode: "Never",
            provideClusterInfo: true,
          },
        },
        { extensions: [{ name: "client.authentication.cluster.io/exec", extension: { region: "eu" } }] },
      );
      assert.deepEqual((await c.call("GET", "/who")).body, { who: "token:plugin-token" });
      assert.deepEqual(JSON.parse(readFileSync(out, "utf8")), {
        apiVersion: V1,
        kind: "ExecCredential",
        spec: {
          cluster: {
            server: peer.url,
            "certificate-authority-data": b64(peer.serverCa.certPem),
            config: { region: "eu" },
          },
          interactive: false,
        },
      });
      await c.call("GET", "/who");
      assert.equal(c.execProvider?.runs, 1);
      await c.close();
    });

    test("a 401 drops the cached token and retries once with a fresh one", async () => {
      reset();
      accepted.tokens.add("token-2");
      const counter = `${dir.path}/retry-runs`;
      writeFileSync(counter, "");
      dir.write(
        "retry-plugin.sh",
        `#!/bin/sh\necho run >> "${counter}"\nN=$(wc -l < "${counter}" | tr -d ' ')\necho "{\\"apiVersion\\":\\"${V1}\\",\\"kind\\":\\"ExecCredential\\",\\"status\\":{\\"token\\":\\"token-$N\\"}}"\n`,
        true,
      );
      const c = client({ exec: { apiVersion: V1, command: "./retry-plugin.sh", interactiveMode: "Never" } });
      const before = peer.requests.length;
      assert.deepEqual((await c.call("GET", "/who")).body, { who: "token:token-2" });
      assert.deepEqual(
        peer.requests.slice(before).map((r) => r.headers.authorization),
        ["Bearer token-1", "Bearer token-2"],
      );
      await c.call("GET", "/who");
      assert.equal(c.execProvider?.runs, 2);
      // Refused again and again: one retry per request, then the 401 is the answer.
      accepted.tokens.clear();
      const mark = peer.requests.length;
      assert.equal((await c.call("GET", "/who")).status, 401);
      assert.equal(peer.requests.length - mark, 2);
      assert.equal(c.execProvider?.runs, 3);
      await c.close();
    });

    test("a new certificate from the plugin is presented on a new TLS connection", async () => {
      reset();
      accepted.cns.add("rotated-2");
      for (const n of [1, 2]) {
        const cert = await peer.clientCertificate(`rotated-${n}`);
        writeFileSync(
          `${dir.path}/cred-${n}.json`,
          JSON.stringify({
            apiVersion: V1,
            kind: "ExecCredential",
            status: { clientCertificateData: cert.certPem, clientKeyData: cert.keyPem },
          }),
        );
      }
      const counter = `${dir.path}/cert-runs`;
      writeFileSync(counter, "");
      dir.write(
        "cert-plugin.sh",
        `#!/bin/sh\necho run >> "${counter}"\nN=$(wc -l < "${counter}" | tr -d ' ')\ncat "${dir.path}/cred-$N.json"\n`,
        true,
      );
      const c = client({ exec: { apiVersion: V1, command: "./cert-plugin.sh", interactiveMode: "Never" } });
      const before = peer.requests.length;
      assert.deepEqual((await c.call("GET", "/who")).body, { who: "cert:rotated-2" });
      const [first, second] = peer.requests.slice(before);
      assert.equal(first?.clientCN, "rotated-1");
      assert.equal(second?.clientCN, "rotated-2");
      assert.notEqual(first?.connection, second?.connection);
      // Later requests keep the new certificate; no connection ever carried both.
      await c.call("GET", "/who");
      await c.call("GET", "/who");
      const cnsPerConnection = new Map<number, Set<string | undefined>>();
      for (const r of peer.requests.slice(before)) {
        assert.equal(r.clientCN === "rotated-1", r === first);
        const set = cnsPerConnection.get(r.connection) ?? new Set();
        set.add(r.clientCN);
        cnsPerConnection.set(r.connection, set);
      }
      for (const set of cnsPerConnection.values()) assert.equal(set.size, 1);
      assert.equal(c.execProvider?.runs, 2);
      await c.close();
    });

    test("plugin errors surface from the request; exec needs the naming", async () => {
      const c = client({
        exec: {
          apiVersion: V1,
          command: "./missing-plugin",
          interactiveMode: "Never",
          installHint: "get it",
        },
      });
      await assert.rejects(c.call("GET", "/who"), /executable .*missing-plugin not found\n\nget it/);
      await c.close();
      const always = client({
        exec: { apiVersion: V1, command: "./missing-plugin", interactiveMode: "Always" },
      });
      await assert.rejects(always.call("GET", "/who"), /standard input is not a terminal/);
      await always.close();
      const path = dir.write(
        "exec-no-naming",
        kubeconfigYaml({ server: peer.url, user: { exec: { apiVersion: V1, command: "x" } } }),
      );
      assert.throws(() => ApiClient.fromKubeconfig(path), /needs the API naming/);
    });
  });
});
