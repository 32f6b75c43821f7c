// kubectl 1.33 against the server with the upstream naming preset: who am I, what may I do,
// service-account tokens, impersonation, RBAC denials and grants, and a static-token user.
import assert from "node:assert/strict";
import { readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import {
  type GatewayProcess,
  kubectl,
  kubectlVersions,
  NO_KUBECTL,
  startGateway,
} from "./support/gateway-process.ts";
import { eventually } from "./support/watch.ts";

const newest = kubectlVersions().at(-1);
let gw: GatewayProcess;
let aliceConfig: string;

before(async () => {
  if (!newest) return;
  const { mkdtemp } = await import("node:fs/promises");
  const { tmpdir } = await import("node:os");
  const dir = await mkdtemp(join(tmpdir(), "cg-auth-"));
  const tokens = join(dir, "tokens.csv");
  await writeFile(tokens, 'alice-token-0123456789,alice,alice-uid,"devs,testers"\n');
  gw = await startGateway(["--api-naming=kubernetes", `--token-auth-file=${tokens}`]);
  const ca = (await readFile(join(gw.dataDir, "pki", "ca.crt"))).toString("base64");
  aliceConfig = join(dir, "alice.kubeconfig");
  await writeFile(
    aliceConfig,
    JSON.stringify({
      apiVersion: "v1",
      kind: "Config",
      clusters: [
        { name: "c", cluster: { server: `https://127.0.0.1:${gw.port}`, "certificate-authority-data": ca } },
      ],
      users: [{ name: "alice", user: { token: "alice-token-0123456789" } }],
      contexts: [{ name: "alice", context: { cluster: "c", user: "alice", namespace: "default" } }],
      "current-context": "alice",
    }),
  );
});
after(async () => {
  await gw?.stop();
  if (gw) await rm(gw.dataDir, { recursive: true, force: true });
});

describe("authentication and authorization with kubectl", { skip: newest ? false : NO_KUBECTL }, () => {
  const admin = (...args: string[]) => kubectl(newest as string, gw.kubeconfig, args);
  const alice = (...args: string[]) => kubectl(newest as string, aliceConfig, args);
  /** Waits until RBAC has taken in a new binding: `can-i` answers yes for alice. */
  const aliceMay = (verb: string, resource: string) =>
    eventually(
      async () => /^yes/m.test((await alice("auth", "can-i", verb, resource)).stdout),
      20_000,
      `alice may ${verb} ${resource}`,
    );
  const ok = async (r: Promise<{ stdout: string; code: number }>) => {
    const res = await r;
    assert.equal(res.code, 0, res.stdout);
    return res.stdout;
  };

  it("auth whoami shows the certificate user and the token user", async () => {
    const me = await ok(admin("auth", "whoami"));
    assert.match(me, /Username\s+cluster-admin/);
    assert.match(me, /system:masters/);
    assert.match(me, /system:authenticated/);
    const a = await ok(alice("auth", "whoami", "-o", "json"));
    const review = JSON.parse(a) as {
      status: { userInfo: { username: string; uid: string; groups: string[] } };
    };
    assert.equal(review.status.userInfo.username, "alice");
    assert.equal(review.status.userInfo.uid, "alice-uid");
    assert.deepEqual(review.status.userInfo.groups, ["devs", "testers", "system:authenticated"]);
  });

  it("a bad token is 401, not anonymous", async () => {
    const bad = aliceConfig.replace("alice.kubeconfig", "bad.kubeconfig");
    const text = (await readFile(aliceConfig, "utf8")).replace(
      "alice-token-0123456789",
      "nope-token-0000000000",
    );
    await writeFile(bad, text);
    const r = await kubectl(newest as string, bad, ["get", "configmaps"]);
    assert.notEqual(r.code, 0);
    assert.match(r.stdout, /Unauthorized|provide credentials/);
  });

  it("RBAC: denied until a Role and RoleBinding grant it; can-i and can-i --list agree", async () => {
    const denied = await alice("get", "configmaps");
    assert.notEqual(denied.code, 0);
    assert.match(
      denied.stdout,
      /configmaps is forbidden: User "alice" cannot list resource "configmaps" in API group "" in the namespace "default"/,
    );
    assert.match((await alice("auth", "can-i", "list", "configmaps")).stdout, /^no/m);
    await ok(
      admin("create", "role", "cm-reader", "-n", "default", "--verb=get,list", "--resource=configmaps"),
    );
    await ok(
      admin("create", "rolebinding", "cm-reader", "-n", "default", "--role=cm-reader", "--group=devs"),
    );
    await aliceMay("list", "configmaps");
    await ok(alice("get", "configmaps"));
    assert.match((await alice("auth", "can-i", "delete", "configmaps")).stdout, /^no/m);
    assert.match((await alice("auth", "can-i", "list", "configmaps", "-n", "kube-system")).stdout, /^no/m);
    const list = await ok(alice("auth", "can-i", "--list"));
    assert.match(list, /^configmaps\s+\[\]\s+\[\]\s+\[get list\]/m);
    assert.match(list, /selfsubjectreviews\.authentication\.k8s\.io/);
  });

  it("escalation: alice cannot grant herself more than she holds", async () => {
    await ok(
      admin(
        "create",
        "role",
        "role-writer",
        "-n",
        "default",
        "--verb=create",
        "--resource=roles.rbac.authorization.k8s.io",
      ),
    );
    await ok(
      admin("create", "rolebinding", "role-writer", "-n", "default", "--role=role-writer", "--user=alice"),
    );
    await aliceMay("create", "roles.rbac.authorization.k8s.io");
    const more = await alice("create", "role", "secrets-reader", "--verb=get", "--resource=secrets");
    assert.notEqual(more.code, 0, more.stdout);
    assert.match(more.stdout, /attempting to grant RBAC permissions not currently held/);
    await ok(alice("create", "role", "cm-getter", "--verb=get", "--resource=configmaps"));
  });

  it("impersonation with --as needs the impersonate verb", async () => {
    const asAlice = await admin("get", "configmaps", "-n", "default", "--as=bob");
    assert.notEqual(asAlice.code, 0);
    assert.match(asAlice.stdout, /User "bob" cannot list resource "configmaps"/);
    const who = await ok(admin("auth", "whoami", "--as=bob", "--as-group=qa"));
    assert.match(who, /Username\s+bob/);
    assert.match(who, /qa/);
    const refused = await alice("get", "configmaps", "--as=bob");
    assert.notEqual(refused.code, 0);
    assert.match(
      refused.stdout,
      /users "bob" is forbidden: User "alice" cannot impersonate resource "users" in API group "" at the cluster scope/,
    );
  });

  it("create token gives a service-account token that authenticates", async () => {
    await ok(admin("create", "serviceaccount", "robot", "-n", "default"));
    const token = (await ok(admin("create", "token", "robot", "-n", "default", "--duration=15m"))).trim();
    assert.match(token, /^[\w-]+\.[\w-]+\.[\w-]+$/);
    const cfg = aliceConfig.replace("alice.kubeconfig", "robot.kubeconfig");
    await writeFile(cfg, (await readFile(aliceConfig, "utf8")).replace("alice-token-0123456789", token));
    const who = await ok(kubectl(newest as string, cfg, ["auth", "whoami"]));
    assert.match(who, /Username\s+system:serviceaccount:default:robot/);
    assert.match(who, /system:serviceaccounts:default/);
    const tooShort = await admin("create", "token", "robot", "-n", "default", "--duration=1m");
    assert.notEqual(tooShort.code, 0);
    assert.match(tooShort.stdout, /may not specify a duration less than 10 minutes/);
  });
});
