// A node joining with a bootstrap token (issue 19, section 4), the whole TLS bootstrap as kubeadm
// join and the kubelet do it, against the real gateway with real clients under both naming
// presets: kubectl (oldest and newest), client-node, Debian's python3-kubernetes and openssl. The admin creates
// a bootstrap token and kubeadm's bindings for it; the node, knowing only the server address and
// the token, reads cluster-info anonymously without trusting the server yet and checks its JWS
// with the token, then trusts the CA found there; as the bootstrap user it asks for a client
// certificate for system:node:n1, which is approved and signed by the gateway's controllers; with
// that certificate it is system:node:n1, kept to its own Node by the Node authorizer and
// NodeRestriction.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { randomInt } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { promisify } from "node:util";
import { load } from "js-yaml";
import { type Naming, naming } from "../backends/naming/index.ts";
import { signerNames } from "../plugins/authorization/rbac/index.ts";
import {
  type GatewayProcess,
  kubectlRun,
  oldestAndNewestKubectl,
  startGateway,
} from "./support/gateway-process.ts";
import { PYTHON, pythonSkip } from "./support/python.ts";
import { eventually } from "./support/watch.ts";

const run = promisify(execFile);
const KUBECTLS = oldestAndNewestKubectl();
const python = pythonSkip === false;

const ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789";
const randomString = (n: number) =>
  Array.from({ length: n }, () => ALPHABET[randomInt(ALPHABET.length)]).join("");

/** Runs a program with stdin, failing with its stderr. */
function pipe(file: string, args: string[], input: string | Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const child = execFile(file, args, { encoding: "buffer", timeout: 30_000 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`${file} ${args.join(" ")}: ${err.message}\n${stderr}`));
      else resolve(stdout);
    });
    child.stdin?.end(input);
  });
}

/**
 * Checks a detached JWS as kubeadm's discovery does, with openssl computing the HMAC: the header
 * names HS256 and the token id, the signature is HMAC-SHA256 over `header.base64url(content)`
 * keyed by the token secret zero-padded to 32 bytes.
 */
async function jwsVerifies(sig: string, content: string, id: string, secret: string): Promise<boolean> {
  const [header, payload, mac] = sig.split(".");
  if (header === undefined || payload !== "" || mac === undefined) return false;
  const h = JSON.parse(Buffer.from(header, "base64url").toString());
  if (JSON.stringify(h) !== JSON.stringify({ alg: "HS256", kid: id })) return false;
  const key = Buffer.alloc(Math.max(32, Buffer.byteLength(secret)));
  key.write(secret);
  const digest = await pipe(
    "openssl",
    ["dgst", "-sha256", "-mac", "HMAC", "-macopt", `hexkey:${key.toString("hex")}`, "-binary"],
    `${header}.${Buffer.from(content).toString("base64url")}`,
  );
  return digest.toString("base64url") === mac;
}

interface Kubeconfig {
  clusters: { cluster: { server: string; "certificate-authority-data": string } }[];
}

for (const preset of ["cluster", "kubernetes"] as const) {
  const names: Naming = naming(preset);
  const certificates = names.group("certificates");
  const rbac = names.group("rbac.authorization");

  describe(`a node joins with a bootstrap token (--api-naming=${preset})`, {
    skip: KUBECTLS.length === 0 && "no kubectl",
  }, () => {
    let gw: GatewayProcess;
    let dir: string;
    let admin: string;
    const id = randomString(6);
    const secret = randomString(16);
    const kubectl = KUBECTLS.at(-1) as string;
    /** Learned from cluster-info once its signature checks out. */
    let server = "";
    let caPem = "";

    const kubeconfig = async (
      name: string,
      user: Record<string, string>,
      cluster: Record<string, unknown>,
    ) => {
      const path = join(dir, name);
      await writeFile(
        path,
        JSON.stringify({
          apiVersion: "v1",
          kind: "Config",
          clusters: [{ name: "c", cluster }],
          users: [{ name: "u", user }],
          contexts: [{ name: "x", context: { cluster: "c", user: "u" } }],
          "current-context": "x",
        }),
      );
      return path;
    };
    const trusted = () => ({
      server,
      "certificate-authority-data": Buffer.from(caPem).toString("base64"),
    });
    const ok = async (binary: string, config: string, args: string[], input?: string) => {
      const r = await kubectlRun(binary, config, args, input);
      assert.equal(r.code, 0, `kubectl ${args.join(" ")}: ${r.stderr}`);
      return r.stdout;
    };
    const refused = async (
      binary: string,
      config: string,
      args: string[],
      pattern: RegExp,
      input?: string,
    ) => {
      const r = await kubectlRun(binary, config, args, input);
      assert.notEqual(r.code, 0, `kubectl ${args.join(" ")} should fail: ${r.stdout}`);
      assert.match(r.stderr, pattern);
    };

    before(async () => {
      gw = await startGateway([
        `--api-naming=${preset}`,
        "--enable-bootstrap-token-auth",
        "--enable-admission-plugins=NodeRestriction",
      ]);
      dir = await mkdtemp(join(tmpdir(), "cg-node-join-"));
      admin = gw.kubeconfig;
      // What `kubeadm token create` writes, and kubeadm init's bindings for its default group.
      const group = "system:bootstrappers:kubeadm:default-node-token";
      await ok(kubectl, admin, [
        "create",
        "secret",
        "generic",
        `bootstrap-token-${id}`,
        `--namespace=${names.systemNamespace}`,
        `--type=${names.label("token", "bootstrap")}`,
        `--from-literal=token-id=${id}`,
        `--from-literal=token-secret=${secret}`,
        "--from-literal=usage-bootstrap-authentication=true",
        "--from-literal=usage-bootstrap-signing=true",
        `--from-literal=auth-extra-groups=${group}`,
      ]);
      const binding = (name: string, role: string, subject: string) => ({
        apiVersion: `${rbac}/v1`,
        kind: "ClusterRoleBinding",
        metadata: { name },
        roleRef: { apiGroup: rbac, kind: "ClusterRole", name: role },
        subjects: [{ apiGroup: rbac, kind: "Group", name: subject }],
      });
      const bindings = {
        apiVersion: "v1",
        kind: "List",
        items: [
          binding("kubeadm:kubelet-bootstrap", "system:node-bootstrapper", group),
          binding(
            "kubeadm:node-autoapprove-bootstrap",
            `system:${certificates}:certificatesigningrequests:nodeclient`,
            group,
          ),
          binding(
            "kubeadm:node-autoapprove-certificate-rotation",
            `system:${certificates}:certificatesigningrequests:selfnodeclient`,
            "system:nodes",
          ),
        ],
      };
      await ok(kubectl, admin, ["apply", "-f", "-"], JSON.stringify(bindings));
    });

    after(async () => {
      await gw?.stop();
      if (gw) await rm(gw.dataDir, { recursive: true, force: true });
      if (dir) await rm(dir, { recursive: true, force: true });
    });

    it("anonymous callers read the signed cluster-info before trusting the server, and check it with the token", async () => {
      const url = `https://127.0.0.1:${gw.port}`;
      // kubeadm's discovery reads cluster-info without verifying TLS: the JWS is what it trusts.
      // kubectl prompts for a user name when a kubeconfig has no credentials, so the anonymous
      // reads are the client libraries', which send none, as kubeadm's client-go does.
      const k8s = await import("@kubernetes/client-node");
      const kc = new k8s.KubeConfig();
      kc.loadFromOptions({
        clusters: [{ name: "c", server: url, skipTLSVerify: true }],
        users: [{ name: "u" }],
        contexts: [{ name: "x", cluster: "c", user: "u" }],
        currentContext: "x",
      });
      const core = kc.makeApiClient(k8s.CoreV1Api);
      const reads: Record<string, string>[] = [];
      let data: Record<string, string> = {};
      await eventually(
        async () => {
          data = (
            await core.readNamespacedConfigMap({ name: "cluster-info", namespace: names.publicNamespace })
          ).data as Record<string, string>;
          return `jws-kubeconfig-${id}` in data;
        },
        15_000,
        "the token's signature",
      );
      reads.push(data);
      // Only that ConfigMap: anonymous may not list, nor read others.
      const forbidden = (e: unknown) => (e as { code?: number }).code === 403;
      await assert.rejects(core.listNamespacedConfigMap({ namespace: names.publicNamespace }), forbidden);
      await assert.rejects(
        core.readNamespacedConfigMap({ name: names.rootCaConfigMap, namespace: names.publicNamespace }),
        forbidden,
      );
      await assert.rejects(
        core.readNamespacedSecret({ name: `bootstrap-token-${id}`, namespace: names.systemNamespace }),
        forbidden,
      );
      if (python) {
        const { stdout } = await run(PYTHON, [
          "-c",
          `import json, sys, urllib3
from kubernetes import client
urllib3.disable_warnings()
cfg = client.Configuration()
cfg.host = sys.argv[1]
cfg.verify_ssl = False
core = client.CoreV1Api(client.ApiClient(cfg))
try:
    core.list_namespaced_config_map(sys.argv[2])
    print("listed")
except client.exceptions.ApiException as e:
    print(e.status)
print(json.dumps(core.read_namespaced_config_map("cluster-info", sys.argv[2]).data))`,
          url,
          names.publicNamespace,
        ]);
        const [listed, read] = stdout.trim().split("\n");
        assert.equal(listed, "403");
        reads.push(JSON.parse(read as string));
      }
      for (const data of reads) {
        const content = data.kubeconfig as string;
        const sig = data[`jws-kubeconfig-${id}`] as string;
        assert.ok(await jwsVerifies(sig, content, id, secret), "the token's signature verifies");
        // Another token's secret, another id, or changed content does not.
        assert.ok(!(await jwsVerifies(sig, content, id, randomString(16))), "a wrong secret fails");
        assert.ok(!(await jwsVerifies(sig, content, randomString(6), secret)), "a wrong id fails");
        assert.ok(!(await jwsVerifies(sig, `${content}\n`, id, secret)), "changed content fails");
      }
      // The verified kubeconfig: kubeadm's shape, the server and the CA of the admin's.
      const parsed = load(reads[0]?.kubeconfig as string) as Kubeconfig & Record<string, unknown>;
      assert.equal(parsed.clusters.length, 1);
      assert.deepEqual(parsed.clusters[0], {
        name: "",
        cluster: parsed.clusters[0]?.cluster,
      });
      const adminConfig = load(await readFile(admin, "utf8")) as Kubeconfig;
      server = parsed.clusters[0]?.cluster.server as string;
      caPem = Buffer.from(
        parsed.clusters[0]?.cluster["certificate-authority-data"] as string,
        "base64",
      ).toString();
      assert.equal(server, adminConfig.clusters[0]?.cluster.server);
      assert.equal(
        caPem,
        Buffer.from(
          adminConfig.clusters[0]?.cluster["certificate-authority-data"] as string,
          "base64",
        ).toString(),
      );
    });

    it("the token authenticates as system:bootstrap:<id>, trusting the CA from cluster-info; a wrong secret does not", async () => {
      assert.ok(server, "cluster-info was verified");
      const bootstrap = await kubeconfig("bootstrap", { token: `${id}.${secret}` }, trusted());
      const wrong = await kubeconfig("wrong", { token: `${id}.${randomString(16)}` }, trusted());
      for (const binary of KUBECTLS) {
        // Authenticated (the 403 names the user), but a bootstrapper may not read Secrets.
        await refused(
          binary,
          bootstrap,
          ["get", "secrets", `--namespace=${names.systemNamespace}`],
          new RegExp(`User "system:bootstrap:${id}" cannot list resource "secrets"`),
        );
        await refused(binary, wrong, ["get", "secrets"], /Unauthorized/);
      }
      // Who the server takes it for: the user and kubeadm's groups (client-node's SelfSubjectReview,
      // whose group client-node hard-codes: upstream's naming only).
      if (preset !== "kubernetes") return;
      const k8s = await import("@kubernetes/client-node");
      const kc = new k8s.KubeConfig();
      kc.loadFromOptions({
        clusters: [{ name: "c", server, caData: Buffer.from(caPem).toString("base64") }],
        users: [{ name: "u", token: `${id}.${secret}` }],
        contexts: [{ name: "x", cluster: "c", user: "u" }],
        currentContext: "x",
      });
      const me = await kc.makeApiClient(k8s.AuthenticationV1Api).createSelfSubjectReview({
        body: { apiVersion: `${names.group("authentication")}/v1`, kind: "SelfSubjectReview" },
      });
      assert.equal(me.status?.userInfo?.username, `system:bootstrap:${id}`);
      assert.deepEqual([...(me.status?.userInfo?.groups ?? [])].sort(), [
        "system:authenticated",
        "system:bootstrappers",
        "system:bootstrappers:kubeadm:default-node-token",
      ]);
    });

    it("as the bootstrap user, a client certificate request for system:node:n1 is approved and signed", async () => {
      assert.ok(server, "cluster-info was verified");
      const bootstrap = await kubeconfig("bootstrap", { token: `${id}.${secret}` }, trusted());
      const key = join(dir, "n1.key");
      const csrPem = (
        await run("openssl", [
          "req",
          "-new",
          "-newkey",
          "ec",
          "-pkeyopt",
          "ec_paramgen_curve:prime256v1",
          "-nodes",
          "-keyout",
          key,
          "-subj",
          "/O=system:nodes/CN=system:node:n1",
        ])
      ).stdout;
      const csr = {
        apiVersion: `${certificates}/v1`,
        kind: "CertificateSigningRequest",
        metadata: { name: `node-csr-n1-${preset}` },
        spec: {
          request: Buffer.from(csrPem).toString("base64"),
          signerName: signerNames(names).apiserverClientKubelet,
          // What a kubelet asks for; exactly these, as the spec's table says for this signer.
          usages: ["digital signature", "key encipherment", "client auth"],
        },
      };
      await ok(kubectl, bootstrap, ["create", "-f", "-"], JSON.stringify(csr));
      let issued: Record<string, unknown> = {};
      await eventually(
        async () => {
          issued = JSON.parse(await ok(kubectl, bootstrap, ["get", "csr", csr.metadata.name, "-o", "json"]));
          return typeof (issued.status as { certificate?: string }).certificate === "string";
        },
        20_000,
        "the certificate",
      );
      const status = issued.status as { certificate: string; conditions: { type: string; status: string }[] };
      assert.deepEqual(
        status.conditions.map((c) => [c.type, c.status]),
        [["Approved", "True"]],
      );
      // The server recorded who asked.
      const spec = issued.spec as { username: string; groups: string[] };
      assert.equal(spec.username, `system:bootstrap:${id}`);
      assert.ok(spec.groups.includes("system:bootstrappers"));
      const certPem = Buffer.from(status.certificate, "base64").toString();
      await writeFile(join(dir, "n1.crt"), certPem);
      await writeFile(join(dir, "ca.crt"), caPem);
      const subject = (await run("openssl", ["x509", "-in", join(dir, "n1.crt"), "-noout", "-subject"]))
        .stdout;
      assert.match(subject, /O\s*=\s*system:nodes/);
      assert.match(subject, /CN\s*=\s*system:node:n1/);
      const verified = await run("openssl", ["verify", "-CAfile", join(dir, "ca.crt"), join(dir, "n1.crt")]);
      assert.match(verified.stdout, /OK/);
      await kubeconfig(
        "n1",
        {
          "client-certificate-data": Buffer.from(certPem).toString("base64"),
          "client-key-data": Buffer.from(await readFile(key)).toString("base64"),
        },
        trusted(),
      );
    });

    it("with its certificate the node is system:node:n1: its own Node, not another's", async () => {
      const n1 = join(dir, "n1");
      assert.ok(existsSync(n1), "the certificate was issued");
      const node = (name: string) => JSON.stringify({ apiVersion: "v1", kind: "Node", metadata: { name } });
      // Another node's object, created by the admin.
      await ok(kubectl, admin, ["create", "-f", "-"], node("n2"));
      for (const binary of KUBECTLS) {
        if (binary === KUBECTLS[0]) await ok(binary, n1, ["create", "-f", "-"], node("n1"));
        await ok(binary, n1, ["annotate", "node", "n1", "--overwrite", `joined-by=${binary.slice(-4)}`]);
        // Refused by the Node authorizer or NodeRestriction, whichever sees it first.
        await refused(binary, n1, ["annotate", "node", "n2", "x=y"], /nodes "n2" is forbidden/);
        await refused(
          binary,
          n1,
          ["patch", "node", "n2", "-p", '{"metadata":{"labels":{"x":"y"}}}'],
          /nodes "n2" is forbidden/,
        );
        await refused(
          binary,
          n1,
          ["create", "-f", "-"],
          /node "n1" is not allowed to modify node "n3"/,
          node("n3"),
        );
        await refused(binary, n1, ["delete", "node", "n2"], /nodes "n2" is forbidden/);
        // The Node authorizer gives it nothing of other workloads.
        await refused(
          binary,
          n1,
          ["get", "secrets", "--namespace=default"],
          /User "system:node:n1" cannot list resource "secrets"/,
        );
      }
      if (python) {
        const { stdout } = await run(PYTHON, [
          "-c",
          `import json, sys
from kubernetes import client, config
config.load_kube_config(config_file=sys.argv[1])
core = client.CoreV1Api()
core.patch_node("n1", {"metadata": {"labels": {"joined": "python"}}})
try:
    core.patch_node("n2", {"metadata": {"labels": {"joined": "python"}}})
    print("n2 patched")
except client.exceptions.ApiException as e:
    print(e.status, json.loads(e.body)["message"])`,
          n1,
        ]);
        assert.match(stdout, /^403 nodes "n2" is forbidden/);
      }
      const labels = JSON.parse(await ok(kubectl, admin, ["get", "node", "n1", "-o", "json"])).metadata;
      assert.equal(labels.annotations["joined-by"], KUBECTLS.at(-1)?.slice(-4));
      if (python) assert.equal(labels.labels.joined, "python");
      const n2 = JSON.parse(await ok(kubectl, admin, ["get", "node", "n2", "-o", "json"])).metadata;
      assert.equal(n2.annotations?.x, undefined);
      assert.equal(n2.labels?.joined, undefined);
    });
  });
}
