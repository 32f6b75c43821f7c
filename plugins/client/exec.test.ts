import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { after, describe, test } from "node:test";
import { naming } from "../../backends/naming/index.ts";
import { createAuthority, issueCertificate } from "../../gateway/pki/certificates.ts";
import { EXEC_INFO_ENV, ExecCredentialProvider } from "./exec.ts";
import type { ExecConfig } from "./kubeconfig.ts";
import { tempDir } from "./testing/index.ts";

const dir = tempDir("exec-test-");
after(() => dir.remove());

const V1 = "client.authentication.cluster.io/v1";
const V1BETA1 = "client.authentication.cluster.io/v1beta1";
const cluster = naming("cluster");

let scripts = 0;
/**
 * A plugin script: records its input and arguments under $OUT, counts its runs, and prints
 * `status` (a JSON text in which $N is the run number) in an ExecCredential of `answerVersion`.
 */
function plugin(status: string, answerVersion = V1): { command: string; out: string } {
  const out = `${dir.path}/out-${++scripts}`;
  const command = dir.write(
    `plugin-${scripts}.sh`,
    `#!/bin/sh
mkdir -p "${out}"
echo run >> "${out}/runs"
N=$(wc -l < "${out}/runs" | tr -d ' ')
printf '%s' "$${EXEC_INFO_ENV}" > "${out}/input-$N.json"
printf '%s\\n' "$*" > "${out}/args"
printf '%s' "$GREETING" > "${out}/env"
cat <<EOF
{"apiVersion":"${answerVersion}","kind":"ExecCredential","status":${status}}
EOF
`,
    true,
  );
  return { command, out };
}

function config(command: string, extra: Partial<ExecConfig> = {}): ExecConfig {
  return {
    command,
    args: [],
    env: [],
    apiVersion: V1,
    provideClusterInfo: false,
    interactiveMode: "Never",
    ...extra,
  };
}

const runs = (out: string) =>
  existsSync(`${out}/runs`) ? readFileSync(`${out}/runs`, "utf8").split("\n").length - 1 : 0;
const input = (out: string, n = 1) => JSON.parse(readFileSync(`${out}/input-${n}.json`, "utf8"));

describe("exec credential plugins", () => {
  test("input in KUBERNETES_EXEC_INFO, args and env passed, token cached without expiry", async () => {
    const p = plugin('{"token":"token-$N"}');
    const provider = new ExecCredentialProvider(
      config(p.command, { args: ["get", "token"], env: [{ name: "GREETING", value: "hello" }] }),
      { naming: cluster, stdinIsTerminal: false },
    );
    assert.deepEqual(await provider.credentials(), { token: "token-1" });
    assert.deepEqual(input(p.out), { apiVersion: V1, kind: "ExecCredential", spec: { interactive: false } });
    assert.equal(readFileSync(`${p.out}/args`, "utf8"), "get token\n");
    assert.equal(readFileSync(`${p.out}/env`, "utf8"), "hello");
    assert.deepEqual(await provider.credentials(), { token: "token-1" });
    assert.equal(runs(p.out), 1);
  });

  test("concurrent callers share one run", async () => {
    const p = plugin('{"token":"token-$N"}');
    const provider = new ExecCredentialProvider(config(p.command), { naming: cluster });
    const all = await Promise.all([provider.credentials(), provider.credentials(), provider.credentials()]);
    assert.deepEqual(
      all.map((c) => c.token),
      ["token-1", "token-1", "token-1"],
    );
    assert.equal(runs(p.out), 1);
  });

  test("provideClusterInfo sends spec.cluster with the CA as base64 and the extension as config", async () => {
    const p = plugin('{"token":"t"}', V1BETA1);
    const provider = new ExecCredentialProvider(
      config(p.command, { apiVersion: V1BETA1, provideClusterInfo: true }),
      {
        naming: cluster,
        stdinIsTerminal: false,
        cluster: {
          server: "https://api:6443",
          caPem: "PEM",
          tlsServerName: "api.local",
          config: { audience: "a" },
        },
      },
    );
    await provider.credentials();
    assert.deepEqual(input(p.out).spec, {
      cluster: {
        server: "https://api:6443",
        "tls-server-name": "api.local",
        "certificate-authority-data": Buffer.from("PEM").toString("base64"),
        config: { audience: "a" },
      },
      interactive: false,
    });
    // Without provideClusterInfo the plugin learns nothing about the cluster.
    const q = plugin('{"token":"t"}');
    await new ExecCredentialProvider(config(q.command), {
      naming: cluster,
      cluster: { server: "https://x" },
    }).credentials();
    assert.equal(input(q.out).spec.cluster, undefined);
  });

  test("the upstream naming preset uses its own group", async () => {
    const p = plugin('{"token":"t"}', "client.authentication.k8s.io/v1");
    const k8s = naming("kubernetes");
    const provider = new ExecCredentialProvider(
      config(p.command, { apiVersion: "client.authentication.k8s.io/v1" }),
      {
        naming: k8s,
      },
    );
    assert.equal((await provider.credentials()).token, "t");
    assert.throws(() => new ExecCredentialProvider(config(p.command), { naming: k8s }), /invalid apiVersion/);
  });

  describe("interactiveMode", () => {
    test("required in v1, optional in v1beta1, and only the three values", () => {
      const { command } = plugin('{"token":"t"}');
      assert.throws(
        () =>
          new ExecCredentialProvider(
            { command, args: [], env: [], apiVersion: V1, provideClusterInfo: false },
            { naming: cluster, userName: "alice" },
          ),
        /interactiveMode must be specified for alice/,
      );
      new ExecCredentialProvider(
        { command, args: [], env: [], apiVersion: V1BETA1, provideClusterInfo: false },
        { naming: cluster },
      );
      assert.throws(
        () =>
          new ExecCredentialProvider(config(command, { interactiveMode: "Sometimes" }), { naming: cluster }),
        /invalid interactiveMode/,
      );
    });

    test("Always without a terminal on stdin: an error, and the plugin does not run", async () => {
      const p = plugin('{"token":"t"}');
      const provider = new ExecCredentialProvider(config(p.command, { interactiveMode: "Always" }), {
        naming: cluster,
        stdinIsTerminal: false,
      });
      await assert.rejects(provider.credentials(), /standard input is not a terminal/);
      assert.equal(runs(p.out), 0);
    });

    test("Always with a terminal runs interactively; Never never does; IfAvailable follows the terminal", async () => {
      const cases: [string | undefined, string, boolean, boolean][] = [
        ["Always", V1, true, true],
        ["Never", V1, true, false],
        ["IfAvailable", V1, true, true],
        ["IfAvailable", V1, false, false],
        [undefined, V1BETA1, true, true],
        [undefined, V1BETA1, false, false],
      ];
      for (const [mode, apiVersion, terminal, expected] of cases) {
        const p = plugin('{"token":"t"}', apiVersion);
        const c: ExecConfig = {
          command: p.command,
          args: [],
          env: [],
          apiVersion,
          provideClusterInfo: false,
        };
        const provider = new ExecCredentialProvider(mode ? { ...c, interactiveMode: mode } : c, {
          naming: cluster,
          stdinIsTerminal: terminal,
        });
        await provider.credentials();
        assert.equal(input(p.out).spec.interactive, expected, `${mode} ${apiVersion} terminal=${terminal}`);
      }
    });
  });

  test("expirationTimestamp: cached until then, run again after", async () => {
    const p = plugin('{"token":"token-$N","expirationTimestamp":"2030-01-01T00:00:00Z"}');
    let now = Date.parse("2029-12-31T23:59:00Z");
    const provider = new ExecCredentialProvider(config(p.command), { naming: cluster, now: () => now });
    const first = await provider.credentials();
    assert.equal(first.token, "token-1");
    assert.equal(first.expiresAt, Date.parse("2030-01-01T00:00:00Z"));
    assert.equal((await provider.credentials()).token, "token-1");
    now = Date.parse("2030-01-01T00:00:01Z");
    assert.equal((await provider.credentials()).token, "token-2");
    assert.equal(runs(p.out), 2);
  });

  test("invalidate drops the refused answer, not a newer one", async () => {
    const p = plugin('{"token":"token-$N"}');
    const provider = new ExecCredentialProvider(config(p.command), { naming: cluster });
    const first = await provider.credentials();
    provider.invalidate(first);
    const second = await provider.credentials();
    assert.equal(second.token, "token-2");
    provider.invalidate(first); // stale: a newer answer is cached already
    assert.equal((await provider.credentials()).token, "token-2");
    assert.equal(provider.runs, 2);
  });

  test("a certificate and key are returned together, and must parse", async () => {
    const ca = await createAuthority("exec-test-ca");
    const leaf = await issueCertificate(ca, { commonName: "someone", usage: "client" });
    const status = JSON.stringify({ clientCertificateData: leaf.certPem, clientKeyData: leaf.keyPem });
    const p = plugin(status);
    const provider = new ExecCredentialProvider(config(p.command), { naming: cluster });
    assert.deepEqual(await provider.credentials(), {
      clientCertPem: leaf.certPem,
      clientKeyPem: leaf.keyPem,
    });
    const q = plugin('{"clientCertificateData":"CERT","clientKeyData":"KEY"}');
    await assert.rejects(
      new ExecCredentialProvider(config(q.command), { naming: cluster }).credentials(),
      /failed parsing client key\/certificate/,
    );
  });

  test("bad answers and failing plugins are errors", async () => {
    const fails = async (status: string, pattern: RegExp, answerVersion = V1) => {
      const p = plugin(status, answerVersion);
      await assert.rejects(
        new ExecCredentialProvider(config(p.command), { naming: cluster }).credentials(),
        pattern,
      );
    };
    await fails(
      '{"token":"t"}',
      /configured to use API version .*\/v1, plugin returned version .*\/v1beta1/,
      V1BETA1,
    );
    await fails('{"clientCertificateData":"CERT"}', /only certificate or key, not both/);
    await fails('{"clientKeyData":"KEY"}', /only certificate or key, not both/);
    await fails("{}", /didn't return a token or cert\/key pair/);
    await fails("null", /didn't return a status field/);
    await fails('{"token":7}', /status.token must be a string/);
    await fails('{"token":"t","expirationTimestamp":"tomorrow"}', /not RFC 3339/);
    await fails("{", /decoding stdout/);

    const exits = dir.write("exit3.sh", "#!/bin/sh\nexit 3\n", true);
    await assert.rejects(
      new ExecCredentialProvider(config(exits), { naming: cluster }).credentials(),
      /executable .*exit3.sh failed with exit code 3/,
    );
    const notExecutable = dir.write("plain.sh", "#!/bin/sh\n");
    await assert.rejects(
      new ExecCredentialProvider(config(notExecutable), { naming: cluster }).credentials(),
      /permission denied/,
    );
    const wrongKind = dir.write("kind.sh", `#!/bin/sh\necho '{"apiVersion":"${V1}","kind":"Pod"}'\n`, true);
    await assert.rejects(
      new ExecCredentialProvider(config(wrongKind), { naming: cluster }).credentials(),
      /not ExecCredential/,
    );
  });

  test("a missing command names it and shows the install hint", async () => {
    const provider = new ExecCredentialProvider(
      config("no-such-credential-plugin-xyz", { installHint: "Install it with: apt install xyz" }),
      { naming: cluster },
    );
    await assert.rejects(provider.credentials(), (err: Error) => {
      assert.match(err.message, /^exec: executable no-such-credential-plugin-xyz not found/);
      assert.match(err.message, /Install it with: apt install xyz/);
      return true;
    });
  });
});
