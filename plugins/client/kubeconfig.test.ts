import assert from "node:assert/strict";
import { after, describe, test } from "node:test";
import { dump } from "js-yaml";
import { loadKubeconfig, parseKubeconfig, readKubeconfigFile } from "./kubeconfig.ts";
import { b64, tempDir } from "./testing/index.ts";

const dir = tempDir("kubeconfig-test-");
after(() => dir.remove());

const CA = "-----BEGIN CERTIFICATE-----\nca\n-----END CERTIFICATE-----\n";
const CERT = "-----BEGIN CERTIFICATE-----\nclient\n-----END CERTIFICATE-----\n";
const KEY = "-----BEGIN PRIVATE KEY-----\nkey\n-----END PRIVATE KEY-----\n";

function twoContexts() {
  return {
    apiVersion: "v1",
    kind: "Config",
    clusters: [
      {
        name: "prod",
        cluster: { server: "https://prod.example:6443/", "certificate-authority-data": b64(CA) },
      },
      {
        name: "dev",
        cluster: {
          server: "https://10.0.0.1",
          "insecure-skip-tls-verify": true,
          "tls-server-name": "api.dev",
          extensions: [{ name: "client.authentication.cluster.io/exec", extension: { audience: "x" } }],
        },
      },
    ],
    users: [
      { name: "alice", user: { "client-certificate-data": b64(CERT), "client-key-data": b64(KEY) } },
      { name: "bob", user: { token: "bob-token" } },
      { name: "carol", user: { username: "carol", password: "secret" } },
    ],
    contexts: [
      { name: "alice@prod", context: { cluster: "prod", user: "alice", namespace: "team" } },
      { name: "bob@dev", context: { cluster: "dev", user: "bob" } },
      { name: "carol@prod", context: { cluster: "prod", user: "carol" } },
      { name: "anon@prod", context: { cluster: "prod" } },
    ],
    "current-context": "alice@prod",
  };
}

describe("kubeconfig", () => {
  test("YAML: the current context's cluster and client certificate", () => {
    const path = dir.write("yaml.kubeconfig", dump(twoContexts()));
    const c = loadKubeconfig(path);
    assert.equal(c.contextName, "alice@prod");
    assert.equal(c.namespace, "team");
    assert.equal(c.cluster.server, "https://prod.example:6443/");
    assert.equal(c.cluster.caPem, CA);
    assert.equal(c.cluster.insecureSkipTlsVerify, false);
    assert.equal(c.user.clientCertPem, CERT);
    assert.equal(c.user.clientKeyPem, KEY);
    assert.equal(c.userName, "alice");
  });

  test("JSON, a named context: token, insecure, server name and extensions", () => {
    const path = dir.write("json.kubeconfig", JSON.stringify(twoContexts()));
    const c = loadKubeconfig(path, { context: "bob@dev" });
    assert.equal(c.cluster.server, "https://10.0.0.1");
    assert.equal(c.cluster.insecureSkipTlsVerify, true);
    assert.equal(c.cluster.tlsServerName, "api.dev");
    assert.deepEqual(c.cluster.extensions, { "client.authentication.cluster.io/exec": { audience: "x" } });
    assert.equal(c.user.token, "bob-token");
    assert.equal(loadKubeconfig(path, { context: "carol@prod" }).user.password, "secret");
    assert.deepEqual(loadKubeconfig(path, { context: "anon@prod" }).user, {});
  });

  test("file references resolve against the kubeconfig's directory", () => {
    dir.write("ca.crt", CA);
    dir.write("client.crt", CERT);
    dir.write("client.key", KEY);
    dir.write("token", "file-token\n");
    const doc = {
      clusters: [{ name: "c", cluster: { server: "https://x", "certificate-authority": "ca.crt" } }],
      users: [
        {
          name: "cert",
          user: { "client-certificate": "client.crt", "client-key": `${dir.path}/client.key` },
        },
        { name: "tok", user: { tokenFile: "./token" } },
        {
          name: "plugin",
          user: {
            exec: {
              apiVersion: "client.authentication.cluster.io/v1",
              command: "./bin/plugin",
              args: ["get", "token"],
              env: [{ name: "A", value: "1" }],
              installHint: "install it",
              provideClusterInfo: true,
              interactiveMode: "Never",
            },
          },
        },
        { name: "path-plugin", user: { exec: { apiVersion: "v", command: "some-plugin" } } },
      ],
      contexts: [
        { name: "cert", context: { cluster: "c", user: "cert" } },
        { name: "tok", context: { cluster: "c", user: "tok" } },
        { name: "plugin", context: { cluster: "c", user: "plugin" } },
        { name: "path-plugin", context: { cluster: "c", user: "path-plugin" } },
      ],
    };
    const path = dir.write("files.kubeconfig", dump(doc));
    const cert = loadKubeconfig(path, { context: "cert" });
    assert.equal(cert.cluster.caPem, CA);
    assert.equal(cert.user.clientCertPem, CERT);
    assert.equal(cert.user.clientKeyPem, KEY);
    assert.equal(loadKubeconfig(path, { context: "tok" }).user.tokenFile, `${dir.path}/token`);
    const exec = loadKubeconfig(path, { context: "plugin" }).user.exec;
    assert.deepEqual(exec, {
      apiVersion: "client.authentication.cluster.io/v1",
      command: `${dir.path}/bin/plugin`,
      args: ["get", "token"],
      env: [{ name: "A", value: "1" }],
      installHint: "install it",
      provideClusterInfo: true,
      interactiveMode: "Never",
    });
    // A bare command name is looked up in PATH, not next to the file.
    assert.equal(loadKubeconfig(path, { context: "path-plugin" }).user.exec?.command, "some-plugin");
  });

  test("malformed files are clear errors", () => {
    const bad = (text: string, pattern: RegExp, context?: string) => {
      const path = dir.write("bad.kubeconfig", text);
      assert.throws(() => loadKubeconfig(path, context ? { context } : {}), pattern);
    };
    bad("clusters: [\n  - unclosed", /not valid YAML or JSON/);
    bad('{"clusters": ', /not valid YAML or JSON/);
    bad("- a\n- b\n", /must be a mapping/);
    bad("kind: Pod\n", /not Config/);
    bad("clusters: {}\n", /"clusters" must be a list/);
    bad("clusters:\n- cluster: {server: https://x}\n", /clusters\[0\] has no name/);
    bad("clusters:\n- name: c\n  cluster: {}\n", /cluster "c" has no server/);
    bad("clusters:\n- name: c\n  cluster: {server: 'not a url'}\n", /is not a URL/);
    bad("clusters:\n- name: c\n  cluster: {server: 'ftp://x'}\n", /http or https/);
    bad(
      "clusters:\n- name: c\n  cluster: {server: 'https://x', certificate-authority-data: '!!'}\n",
      /not valid base64/,
    );
    bad(
      "clusters:\n- name: c\n  cluster: {server: 'https://x', certificate-authority: missing.crt}\n",
      /cannot read "certificate-authority" missing.crt: ENOENT/,
    );
    bad(
      `clusters:\n- name: c\n  cluster: {server: 'https://x', certificate-authority-data: ${b64(CA)}, insecure-skip-tls-verify: true}\n`,
      /insecure-skip-tls-verify is not allowed/,
    );
    bad("users:\n- name: u\n  user: {token: t, username: u}\n", /more than one authentication method/);
    bad(`users:\n- name: u\n  user: {client-certificate-data: ${b64(CERT)}}\n`, /needs its key/);
    bad("users:\n- name: u\n  user: {token: 5}\n", /"token" must be a string/);
    bad("users:\n- name: u\n  user: {tokenFile: nope}\n", /cannot read tokenFile nope/);
    bad("users:\n- name: u\n  user: {exec: {apiVersion: v}}\n", /exec has no command/);
    bad("users:\n- name: u\n  user: {exec: {command: c, env: [{value: x}]}}\n", /exec has no apiVersion/);
    bad(
      "users:\n- name: u\n  user: {exec: {command: c, apiVersion: v, env: [{value: x}]}}\n",
      /env\[0\] has no name/,
    );
    bad("users:\n- name: u\n  user: {auth-provider: {name: gcp}}\n", /auth-provider is not supported/);
    bad("users:\n- {name: u}\n- {name: u}\n", /"u" appears twice/);
    bad("clusters: []\n", /no current-context/);
    bad("current-context: x\n", /context "x" not found/);
    bad(
      "clusters: []\ncontexts:\n- name: x\n  context: {cluster: gone}\ncurrent-context: x\n",
      /cluster "gone" of context "x" not found/,
    );
    bad(
      "clusters:\n- {name: c, cluster: {server: 'https://x'}}\ncontexts:\n- name: x\n  context: {cluster: c, user: nobody}\n",
      /user "nobody" of context "x" not found/,
      "x",
    );
    assert.throws(() => readKubeconfigFile(`${dir.path}/does-not-exist`), /cannot read: ENOENT/);
  });

  test("an empty document is an empty config", () => {
    const file = parseKubeconfig("", "empty");
    assert.equal(file.clusters.size, 0);
    assert.equal(file.currentContext, undefined);
  });
});
