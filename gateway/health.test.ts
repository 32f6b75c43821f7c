import assert from "node:assert/strict";
import { it } from "node:test";
import Fastify from "fastify";
import { naming } from "../backends/naming/index.ts";
import { alwaysAllow } from "../plugins/authorization/index.ts";
import { accessGuard } from "./authorization/index.ts";
import { registerHealth } from "./health.ts";

// Access itself is tested in test/non-api-access.test.ts; here everyone may read.
const guard = accessGuard({
  authenticators: [],
  anonymousAuth: true,
  authorizer: alwaysAllow(),
  naming: naming("cluster"),
});

async function get(app: ReturnType<typeof Fastify>, url: string) {
  const res = await app.inject({ method: "GET", url });
  return { status: res.statusCode, body: res.body };
}

it("reports checks, verbose lines, exclusions, single checks and failures", async () => {
  let storageUp = true;
  const app = Fastify();
  registerHealth(
    app,
    {
      livez: new Map([["ping", () => {}]]),
      readyz: new Map([
        ["ping", () => {}],
        [
          "storage",
          () => {
            if (!storageUp) throw new Error("down");
          },
        ],
      ]),
    },
    { guard },
  );
  assert.deepEqual(await get(app, "/readyz"), { status: 200, body: "ok" });
  assert.deepEqual(await get(app, "/readyz?verbose"), {
    status: 200,
    body: "[+]ping ok\n[+]storage ok\nreadyz check passed\n",
  });
  assert.equal(
    (await get(app, "/readyz?verbose&exclude=storage")).body,
    "[+]ping ok\n[+]storage excluded: ok\nreadyz check passed\n",
  );
  assert.deepEqual(await get(app, "/readyz/storage"), { status: 200, body: "ok" });
  assert.equal((await get(app, "/readyz/nope")).status, 404);
  storageUp = false;
  assert.deepEqual(await get(app, "/readyz"), {
    status: 500,
    body: "[+]ping ok\n[-]storage failed: reason withheld\nreadyz check failed\n",
  });
  assert.equal((await get(app, "/healthz")).status, 500);
  assert.equal((await get(app, "/readyz?exclude=storage")).status, 200);
  assert.equal((await get(app, "/livez")).status, 200);
  await app.close();
});

it("counts failing liveness checks as passing during the grace period only", async () => {
  const failing = new Map([["storage", () => Promise.reject(new Error("not yet"))]]);
  const app = Fastify();
  registerHealth(app, { livez: failing, readyz: failing }, { guard, livezGracePeriodMs: 60_000 });
  assert.equal((await get(app, "/livez")).status, 200);
  assert.equal((await get(app, "/readyz")).status, 500, "readiness has no grace");
  await app.close();
  const late = Fastify();
  registerHealth(
    late,
    { livez: failing, readyz: failing },
    { guard, livezGracePeriodMs: 1000, startedAt: Date.now() - 2000 },
  );
  assert.equal((await get(late, "/livez")).status, 500);
  await late.close();
});
