// Static tokens (`--token-auth-file`) behind `Authorization: Bearer` under the conformance suite.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { bearerAuthenticator, tokenFileAuthenticator } from "../plugins/authentication/index.ts";
import { authenticatorConformance } from "./authenticator-conformance.ts";

const quiet = { info() {}, warn() {}, error() {} };

authenticatorConformance("token-file via bearer", async () => {
  const dir = await mkdtemp(join(tmpdir(), "token-file-"));
  const token = randomBytes(24).toString("base64url");
  const unknown = randomBytes(24).toString("base64url");
  const path = join(dir, "tokens.csv");
  await writeFile(path, `${token},alice,1001,"dev,ops"\n`);
  const tokens = await tokenFileAuthenticator({ path, reloadIntervalMs: 0, log: quiet });
  return {
    authenticator: bearerAuthenticator([tokens], []),
    valid: { headers: { authorization: `Bearer ${token}` } },
    invalid: [
      { name: "unknown token", credential: { headers: { authorization: `Bearer ${unknown}` } } },
      { name: "lower-case scheme", credential: { headers: { authorization: `bearer ${unknown}` } } },
      {
        name: "a prefix of the token",
        credential: { headers: { authorization: `Bearer ${token.slice(0, -1)}` } },
      },
    ],
    malformed: [
      { name: "token in another scheme", credential: { headers: { authorization: `Token ${token}` } } },
    ],
    secrets: [token, unknown, token.slice(0, -1)],
    checkUser(user) {
      assert.equal(user.username, "alice");
      assert.equal(user.uid, "1001");
      assert.deepEqual(user.groups, ["dev", "ops"]);
    },
    async teardown() {
      tokens.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
});
