import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { dump, load } from "js-yaml";
import { checkServer, renderKubeconfig } from "./kubeconfig.ts";

const written = renderKubeconfig({
  clusterName: "cluster",
  userName: "admin",
  server: "https://127.0.0.1:6443",
  caPem: "ca",
  clientCertPem: "cert",
  clientKeyPem: "key",
  recordServer: true,
});

/** The written file with its cluster's server changed by hand. */
function withServer(server: string): string {
  const config = load(written) as { clusters: { cluster: { server: string } }[] };
  config.clusters[0]!.cluster.server = server;
  return dump(config);
}

describe("checkServer", () => {
  it("leaves a file that names the URL served", () => {
    assert.deepEqual(checkServer(written, "https://127.0.0.1:6443"), { outcome: "current" });
  });

  it("points the URL it wrote at the new one, keeping everything else", () => {
    const check = checkServer(written, "https://10.1.2.3:7443");
    assert.equal(check.outcome, "updated");
    if (check.outcome !== "updated") return;
    assert.equal(check.previous, "https://127.0.0.1:6443");
    const before = load(written) as Record<string, unknown>;
    const after = load(check.text) as Record<string, unknown>;
    assert.deepEqual(after, {
      ...before,
      clusters: [
        {
          name: "cluster",
          cluster: {
            server: "https://10.1.2.3:7443",
            "certificate-authority-data": Buffer.from("ca").toString("base64"),
            extensions: [{ name: "cluster-gateway", extension: { server: "https://10.1.2.3:7443" } }],
          },
        },
      ],
    });
    assert.deepEqual(checkServer(check.text, "https://10.1.2.3:7443"), { outcome: "current" });
  });

  it("keeps a server someone put in place of the one it wrote", () => {
    const edited = withServer("https://lb.example.test:443");
    assert.deepEqual(checkServer(edited, "https://127.0.0.1:7443"), {
      outcome: "edited",
      server: "https://lb.example.test:443",
    });
  });

  it("tells a file without its record apart", () => {
    const old = renderKubeconfig({
      clusterName: "cluster",
      userName: "admin",
      server: "https://127.0.0.1:6443",
      caPem: "ca",
      clientCertPem: "cert",
      clientKeyPem: "key",
    });
    assert.deepEqual(checkServer(old, "https://127.0.0.1:7443"), {
      outcome: "unrecorded",
      server: "https://127.0.0.1:6443",
    });
    assert.deepEqual(checkServer(old, "https://127.0.0.1:6443"), { outcome: "current" });
  });
});
