// The authentication stage's view of a request: what each authenticator may read.
import assert from "node:assert/strict";
import { it } from "node:test";
import {
  type AuthenticationRequest,
  type Authenticator,
  requestHeaderAuthenticator,
} from "../../plugins/authentication/index.ts";
import type { RequestContext } from "../pipeline/index.ts";
import { createAuthority } from "../pki/certificates.ts";
import { authenticationStage } from "./access.ts";

/** A request whose raw headersDistinct view counts how often it is built. */
function request(): { ctx: RequestContext; built: () => number } {
  let built = 0;
  const raw = {
    get headersDistinct() {
      built++;
      return { "x-remote-group": ["a", "b"] };
    },
  };
  const ctx = {
    req: { headers: { "x-remote-group": "a, b" }, raw },
    socket: {},
    warnings: [],
    done: false,
  } as unknown as RequestContext;
  return { ctx, built: () => built };
}

const user = { username: "u", uid: "", groups: [], extra: {} };

it("builds the per-line header view only for an authenticator that reads it", async () => {
  const seen: AuthenticationRequest[] = [];
  const headersOnly: Authenticator = {
    name: "headers",
    authenticate(req) {
      seen.push(req);
      return { kind: "user", user };
    },
  };
  const quiet = request();
  await authenticationStage([headersOnly], false).run(quiet.ctx);
  assert.equal(quiet.ctx.user?.username, "u");
  assert.equal(quiet.built(), 0);

  const lines: Authenticator = {
    name: "lines",
    authenticate(req) {
      assert.deepEqual(req.headersDistinct?.["x-remote-group"], ["a", "b"]);
      return { kind: "user", user };
    },
  };
  const reading = request();
  await authenticationStage([lines], false).run(reading.ctx);
  assert.equal(reading.built(), 1);
});

it("the front proxy's authenticator reads the per-line view only for a verified proxy", async () => {
  const ca = await createAuthority("proxy-ca");
  const proxyHeaders = requestHeaderAuthenticator({
    clientCaPem: ca.certPem,
    allowedNames: [],
    usernameHeaders: ["x-remote-user"],
    groupHeaders: ["x-remote-group"],
    extraHeaderPrefixes: ["x-remote-extra-"],
  });
  const direct = request();
  // A caller without a certificate: not the proxy, so anonymous.
  (direct.ctx as { socket: unknown }).socket = { getPeerCertificate: () => ({}) };
  await authenticationStage([proxyHeaders], true).run(direct.ctx);
  assert.equal(direct.ctx.user?.username, "system:anonymous");
  assert.equal(direct.built(), 0);
});
