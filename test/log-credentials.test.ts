// Credentials and Secret data never reach the server's log (issue 22, section 4). The real
// gateway runs at -v=10, in both log formats, with every credential type configured: static
// tokens, bootstrap tokens, service account tokens, OIDC (a real issuer started here), the
// admin's client certificate; real requests use each of them (and wrong ones), read and write a
// Secret with known values, watch it, and review a token. Then every line the gateway wrote
// (standard output, standard error and the audit log, at the default Metadata policy) is searched
// for each secret in each encoding it travels in.
import assert from "node:assert/strict";
import { randomInt } from "node:crypto";
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { after, before, describe, it } from "node:test";
import { naming } from "../backends/naming/index.ts";
import { startTestIssuer, type TestIssuer } from "../plugins/authentication/oidc/test-issuer.ts";
import { ApiClient, type ApiResponse } from "./support/api-client.ts";
import { type GatewayProcess, startGateway } from "./support/gateway-process.ts";
import { eventually, take } from "./support/watch.ts";

const ROOT = resolve(import.meta.dirname, "..");
const names = naming("cluster");
const authentication = names.group("authentication");

const ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789";
const random = (n: number) => Array.from({ length: n }, () => ALPHABET[randomInt(ALPHABET.length)]).join("");
const b64 = (s: string) => Buffer.from(s).toString("base64");

/**
 * The forms a secret can take in a line: as it is, base64 (Secret data, kubeconfig fields;
 * without padding, which depends on what follows) and base64url (a WebSocket bearer subprotocol).
 */
function encodings(secret: string): string[] {
  return [secret, b64(secret).replace(/=+$/, ""), Buffer.from(secret).toString("base64url")];
}

/** The body lines of a PEM block: any of them in a line is part of a private key. */
const pemBody = (pem: string) =>
  pem
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l !== "" && !l.startsWith("-----"));

/** A JWT's signature: its secret half (header and claims are readable by anyone holding it). */
const signature = (jwt: string) => jwt.split(".")[2] as string;

for (const format of ["text", "json"] as const) {
  describe(`credentials and Secret data never reach the log (-v=10, --logging-format=${format})`, () => {
    let gw: GatewayProcess;
    let issuer: TestIssuer;
    let admin: ApiClient;
    let bare: ApiClient;
    let dir: string;
    let auditLog: string;
    /** name -> the secret; every one of them is searched for in every encoding. */
    const secrets = new Map<string, string>();
    const staticToken = `static-${random(24)}`;
    const bootstrapId = random(6);
    const bootstrapSecret = random(16);
    const username = `user-${random(8)}`;
    const passwords = [`pw-${random(20)}`, `pw-${random(20)}`, `pw-${random(20)}`];

    const as = (token: string, method: string, path: string, body?: unknown): Promise<ApiResponse> =>
      bare.call(method, path, { headers: { authorization: `Bearer ${token}` }, body });
    /** Who the gateway takes a token for (SelfSubjectReview). */
    const whoami = async (token: string) => {
      const r = await as(token, "POST", `/apis/${authentication}/v1/selfsubjectreviews`, {
        apiVersion: `${authentication}/v1`,
        kind: "SelfSubjectReview",
      });
      return r.status === 201 ? (r.body.status.userInfo.username as string) : `HTTP ${r.status}`;
    };
    const created = async (path: string, body: unknown) => {
      const r = await admin.call("POST", path, { body });
      assert.equal(r.status, 201, r.text);
      return r.body;
    };

    before(async () => {
      issuer = await startTestIssuer();
      dir = await mkdtemp(join(tmpdir(), "cg-log-credentials-"));
      await writeFile(join(dir, "tokens.csv"), `${staticToken},static-user,static-uid,"readers"\n`);
      await writeFile(join(dir, "oidc-ca.crt"), issuer.caPem);
      auditLog = join(dir, "audit.log");
      gw = await startGateway([
        "-v=10",
        `--logging-format=${format}`,
        `--token-auth-file=${join(dir, "tokens.csv")}`,
        "--enable-bootstrap-token-auth",
        `--oidc-issuer-url=${issuer.url}`,
        "--oidc-client-id=gateway",
        `--oidc-ca-file=${join(dir, "oidc-ca.crt")}`,
        "--oidc-username-claim=email",
        // The default policy (every request at Metadata), as README suggests turning audit on.
        `--audit-policy-file=${join(ROOT, "config/audit-policy.yaml")}`,
        `--audit-log-path=${auditLog}`,
        "--audit-log-mode=blocking",
      ]);
      admin = new ApiClient(gw.kubeconfig);
      bare = new ApiClient(gw.kubeconfig, { anonymous: true });
      // Every private key the gateway holds, and the admin's as its kubeconfig carries it.
      const pki = join(gw.dataDir, "pki");
      for (const file of await readdir(pki)) {
        if (!file.endsWith(".key")) continue;
        const pem = await readFile(join(pki, file), "utf8");
        // A short last line (padding) could match by chance; the full lines suffice.
        pemBody(pem).forEach((line, i) => {
          if (line.length >= 32) secrets.set(`${file} line ${i + 1}`, line);
        });
      }
      const kubeconfig = await readFile(gw.kubeconfig, "utf8");
      const keyData = /client-key-data:\s*(\S+)/.exec(kubeconfig)?.[1];
      assert.ok(keyData, "admin.kubeconfig carries client-key-data");
      secrets.set("admin client-key-data", keyData);
    });

    /** Closes the clients, then stops the gateway (once); its exit code. */
    let finished: Promise<number | null> | undefined;
    const finish = () => {
      finished ??= (async () => {
        await admin?.close();
        await bare?.close();
        return (await gw?.stop()) ?? null;
      })();
      return finished;
    };

    after(async () => {
      await finish();
      await issuer?.close();
      if (gw) await rm(gw.dataDir, { recursive: true, force: true });
      if (dir) await rm(dir, { recursive: true, force: true });
    });

    it("authenticates a static token, and refuses a wrong one", async () => {
      secrets.set("static token", staticToken);
      assert.equal(await whoami(staticToken), "static-user");
      const wrong = `static-${random(24)}`;
      secrets.set("wrong static token", wrong);
      assert.equal(await whoami(wrong), "HTTP 401");
    });

    it("authenticates a client certificate", async () => {
      const r = await admin.call("POST", `/apis/${authentication}/v1/selfsubjectreviews`, {
        body: { apiVersion: `${authentication}/v1`, kind: "SelfSubjectReview" },
      });
      assert.equal(r.status, 201, r.text);
      assert.ok((r.body.status.userInfo.groups as string[]).includes("system:masters"));
    });

    it("authenticates a bootstrap token, and refuses its id with a wrong secret", async () => {
      secrets.set("bootstrap token secret", bootstrapSecret);
      await created(`/api/v1/namespaces/${names.systemNamespace}/secrets`, {
        apiVersion: "v1",
        kind: "Secret",
        metadata: { name: `bootstrap-token-${bootstrapId}` },
        type: names.label("token", "bootstrap"),
        stringData: {
          "token-id": bootstrapId,
          "token-secret": bootstrapSecret,
          "usage-bootstrap-authentication": "true",
        },
      });
      const token = `${bootstrapId}.${bootstrapSecret}`;
      // The authenticator reads token Secrets from an informer: wait until it has this one.
      await eventually(async () => (await whoami(token)) === `system:bootstrap:${bootstrapId}`, 15_000);
      const wrong = random(16);
      secrets.set("wrong bootstrap secret", wrong);
      assert.equal(await whoami(`${bootstrapId}.${wrong}`), "HTTP 401");
    });

    it("authenticates a service account token from a TokenRequest", async () => {
      await created("/api/v1/namespaces/default/serviceaccounts", { metadata: { name: "robot" } });
      const request = await created("/api/v1/namespaces/default/serviceaccounts/robot/token", {
        apiVersion: `${authentication}/v1`,
        kind: "TokenRequest",
        spec: {},
      });
      const token = request.status.token as string;
      secrets.set("service account token signature", signature(token));
      secrets.set("service account token", token);
      assert.equal(await whoami(token), "system:serviceaccount:default:robot");
    });

    it("authenticates an OIDC ID token", async () => {
      const token = await issuer.sign({
        sub: "1",
        email: "jane@example.com",
        aud: "gateway",
        exp: Math.floor(Date.now() / 1000) + 3600,
      });
      secrets.set("OIDC token signature", signature(token));
      // The authenticator discovers the issuer in the background.
      await eventually(async () => (await whoami(token)) === "jane@example.com", 15_000, "OIDC");
    });

    it("reviews a token without logging it or the answer", async () => {
      await created("/api/v1/namespaces/default/serviceaccounts", { metadata: { name: "reviewed" } });
      const request = await created("/api/v1/namespaces/default/serviceaccounts/reviewed/token", {
        apiVersion: `${authentication}/v1`,
        kind: "TokenRequest",
        spec: {},
      });
      const token = request.status.token as string;
      secrets.set("reviewed token signature", signature(token));
      const review = await created(`/apis/${authentication}/v1/tokenreviews`, {
        apiVersion: `${authentication}/v1`,
        kind: "TokenReview",
        spec: { token },
      });
      assert.equal(review.status.authenticated, true);
      // No request is made as this account, so its name in a line could only come from the answer.
      const answered = review.status.user.username as string;
      assert.equal(answered, "system:serviceaccount:default:reviewed");
      secrets.set("TokenReview answer's user", answered);
      secrets.set("TokenReview answer's uid", review.status.user.uid as string);
    });

    it("creates, reads, updates, patches and watches a Secret with known values", async () => {
      secrets.set("Secret username", username);
      passwords.forEach((p, i) => {
        secrets.set(`Secret password ${i}`, p);
      });
      const path = "/api/v1/namespaces/default/secrets";
      const watch = await admin.watch(`${path}?watch=true&fieldSelector=metadata.name%3Dcreds`);
      try {
        await created(path, {
          apiVersion: "v1",
          kind: "Secret",
          metadata: { name: "creds" },
          type: names.label("basic-auth"),
          stringData: { username, password: passwords[0] },
        });
        const got = await admin.call("GET", `${path}/creds`);
        assert.equal(got.status, 200, got.text);
        assert.equal(got.body.data.password, b64(passwords[0] as string));
        const updated = await admin.call("PUT", `${path}/creds`, {
          body: { ...got.body, data: { username: b64(username), password: b64(passwords[1] as string) } },
        });
        assert.equal(updated.status, 200, updated.text);
        const patched = await admin.call("PATCH", `${path}/creds`, {
          body: { data: { password: b64(passwords[2] as string) } },
          contentType: "application/merge-patch+json",
        });
        assert.equal(patched.status, 200, patched.text);
        const events = await take(watch.events, 3, 10_000);
        assert.deepEqual(
          events.map((e) => e.type),
          ["ADDED", "MODIFIED", "MODIFIED"],
        );
        assert.equal(
          (events[2]?.object.data as Record<string, string> | undefined)?.password,
          b64(passwords[2] as string),
        );
      } finally {
        watch.close();
      }
    });

    it("wrote none of them in any line of its log or audit log", async () => {
      const code = await finish();
      const output = gw.output();
      assert.equal(code, 0, `the gateway stops cleanly:\n${output.split("\n").slice(-30).join("\n")}`);
      const audit = await readFile(auditLog, "utf8");
      const lines = [...output.split("\n"), ...audit.split("\n")].filter((l) => l !== "");
      // The search covers the request lines -v=10 writes and the audit events of the same requests.
      const httpLines = output
        .split("\n")
        .filter((l) => (format === "json" ? l.includes('"msg":"HTTP"') : l.includes('] "HTTP"')));
      assert.ok(
        httpLines.some((l) => l.includes("/secrets/creds")),
        "request lines for the Secret are in the log",
      );
      assert.ok(
        httpLines.some((l) => l.includes("tokenreviews")),
        "a request line for the TokenReview is in the log",
      );
      assert.ok(audit.includes('"creds"'), "the audit log has the Secret's events");
      assert.ok(secrets.size > 20, `${secrets.size} secrets searched for`);
      for (const [what, secret] of secrets) {
        assert.ok(secret.length >= 12, `${what} is long enough to be found only where it leaked`);
        for (const form of encodings(secret)) {
          const line = lines.find((l) => l.includes(form));
          assert.equal(line, undefined, `the ${what} (as ${JSON.stringify(form)}) was written:\n${line}`);
        }
      }
    });
  });
}
