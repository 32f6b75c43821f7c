// /version through kubectl as the build of this checkout, and a start-up log without fastify's
// deprecation warnings (issue 25, items 16 and 18).
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { rm } from "node:fs/promises";
import { join, resolve } from "node:path";
import { after, before, it } from "node:test";
import { promisify } from "node:util";
import {
  type GatewayProcess,
  kubectlRun,
  NO_KUBECTL,
  oldestAndNewestKubectl,
  startGateway,
} from "./support/gateway-process.ts";

const ROOT = resolve(import.meta.dirname, "..");
const run = promisify(execFile);
const newest = oldestAndNewestKubectl().at(-1);

let gw: GatewayProcess | undefined;
before(async () => {
  gw = await startGateway(["--storage-backend=memory"]);
});
after(async () => {
  await gw?.stop();
  if (gw) await rm(gw.dataDir, { recursive: true, force: true });
});

it("starting the gateway logs no fastify deprecation warning", () => {
  assert.ok(gw);
  assert.doesNotMatch(gw.output(), /FSTDEP\d+|FastifyDeprecation|FastifyWarning/);
});

it("kubectl version: the server's commit, tree state and build date are this checkout's", {
  skip: newest === undefined && NO_KUBECTL,
}, async () => {
  assert.ok(gw);
  const { code, stdout, stderr } = await kubectlRun(newest as string, gw.kubeconfig, [
    "version",
    "-o",
    "json",
  ]);
  assert.equal(code, 0, stderr);
  const server = JSON.parse(stdout).serverVersion;
  assert.match(server.gitVersion, /^v1\.27\.16\+cluster-gateway\./);
  if (!existsSync(join(ROOT, ".git"))) {
    // Not a checkout: no commit, and the start time as the build date.
    assert.equal(server.gitCommit, "");
    assert.notEqual(server.buildDate, "1970-01-01T00:00:00Z");
    return;
  }
  assert.match(server.gitCommit, /^[0-9a-f]{40}$/);
  // Others may commit while the test runs: the gateway's commit is HEAD or one before it.
  await run("git", ["-C", ROOT, "merge-base", "--is-ancestor", server.gitCommit, "HEAD"]);
  const { stdout: committed } = await run("git", [
    "-C",
    ROOT,
    "show",
    "-s",
    "--format=%ct",
    server.gitCommit,
  ]);
  assert.equal(server.buildDate, `${new Date(Number(committed.trim()) * 1000).toISOString().slice(0, 19)}Z`);
  assert.ok(["clean", "dirty"].includes(server.gitTreeState), server.gitTreeState);
});
