import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { getHeapStatistics } from "node:v8";
import { parseDuration } from "./duration.ts";
import { DEFAULTS, loadOptions, OptionError } from "./options.ts";

describe("durations", () => {
  for (const [text, ms] of [
    ["0", 0],
    ["300ms", 300],
    ["30s", 30_000],
    ["5m", 300_000],
    ["1h30m", 5_400_000],
    ["1.5s", 1500],
  ] as const) {
    it(text, () => assert.equal(parseDuration(text), ms));
  }
  for (const bad of ["", "5", "5x", "m5", "5m ", "-1s"]) {
    it(`rejects ${JSON.stringify(bad)}`, () => assert.throws(() => parseDuration(bad)));
  }
});

describe("options", () => {
  const files: Record<string, string> = {
    "a.yaml":
      "dataDir: /var/lib/cg\nstorageBackend: etcd\netcdServers: [http://127.0.0.1:2379]\ncompactionInterval: 10m\n",
    "bad.yaml": "dataDir: [1, 2\n",
    "unknown.yaml": "nope: 1\n",
  };
  const read = (p: string) => {
    const text = files[p];
    if (text === undefined) throw new Error("ENOENT");
    return text;
  };

  it("defaults", () => assert.deepEqual(loadOptions([], read), DEFAULTS));

  it("reads both flag spellings, booleans, lists and durations", () => {
    const o = loadOptions(
      [
        "--data-dir",
        "/tmp/x",
        "--storage-backend=memory",
        "--storage-sync=false",
        "--etcd-compaction-interval=1m",
        "--feature-gates=WatchList=true",
      ],
      read,
    );
    assert.equal(o.dataDir, "/tmp/x");
    assert.equal(o.storageBackend, "memory");
    assert.equal(o.storageSync, false);
    assert.equal(o.compactionInterval, 60_000);
    assert.deepEqual(o.featureGates, { WatchList: true });
  });

  it("reads history byte budgets as bytes or binary sizes; the default is a sixteenth of the heap limit", () => {
    assert.equal(loadOptions(["--watch-cache-history-bytes=1048576"], read).watchCacheHistoryBytes, 2 ** 20);
    assert.equal(loadOptions(["--watch-cache-history-bytes=512Mi"], read).watchCacheHistoryBytes, 2 ** 29);
    assert.equal(loadOptions(["--watch-cache-history-bytes", "2Gi"], read).watchCacheHistoryBytes, 2 ** 31);
    assert.equal(DEFAULTS.watchCacheHistoryBytes, Math.floor(getHeapStatistics().heap_size_limit / 16));
  });

  it("reads -v and --v as klog's non-negative verbosity, from flags or --config", () => {
    assert.equal(loadOptions(["-v=0"], read).v, 0);
    assert.equal(loadOptions(["-v", "4"], read).v, 4);
    assert.equal(loadOptions(["--v=10"], read).v, 10);
    const config = (text: string) => loadOptions(["--config=v.yaml"], () => text);
    assert.equal(config("v: 3\n").v, 3);
    assert.throws(() => config("v: -2\n"), /-v\/--v: -2 is not a log verbosity level/);
  });

  it("takes settings from --config, with flags winning", () => {
    const o = loadOptions(["--config=a.yaml", "--data-dir=/override"], read);
    assert.equal(o.dataDir, "/override");
    assert.equal(o.storageBackend, "etcd");
    assert.deepEqual(o.etcdServers, ["http://127.0.0.1:2379"]);
    assert.equal(o.compactionInterval, 600_000);
  });

  for (const [args, message] of [
    [["--nope"], /unknown flag: --nope/],
    [["--storage-backend=disk"], /not one of embedded, memory, etcd/],
    [["--storage-backend=etcd"], /needs --etcd-servers/],
    [["--secure-port=http"], /not an integer/],
    [["-v=-1"], /-v\/--v: -1 is not a log verbosity level/],
    [["--v", "-3"], /-v\/--v: -3 is not a log verbosity level/],
    [["-v=1.5"], /--v: "1.5" is not an integer/],
    [["-v=high"], /--v: "high" is not an integer/],
    [["--compaction-interval=soon"], /not a duration/],
    [["--watch-cache-history-bytes=0"], /not a positive size/],
    [["--watch-cache-history-bytes=1GB"], /not a positive size/],
    [["--data-dir"], /needs an argument/],
    [["--config=missing.yaml"], /cannot read missing.yaml/],
    [["--config=bad.yaml"], /not valid YAML/],
    [["--config=unknown.yaml"], /unknown setting "nope"/],
    [["stray"], /unexpected argument/],
  ] as const) {
    it(`rejects ${args.join(" ")}`, () => {
      assert.throws(
        () => loadOptions(args, read),
        (e: unknown) => e instanceof OptionError && message.test(e.message),
      );
    });
  }
});

it("accepts the shipped example configuration", () => {
  const path = new URL("./example.yaml", import.meta.url).pathname;
  const o = loadOptions([`--config=${path}`]);
  assert.equal(o.storageBackend, "embedded");
  assert.equal(o.compactionInterval, 300_000);
  assert.equal(o.watchCacheHistoryBytes, 256 * 2 ** 20);
});

describe("authentication and authorization options", () => {
  it("defaults to Node,RBAC with anonymous access and upstream's token settings", () => {
    const o = loadOptions([]);
    assert.deepEqual(o.authorizationModes, ["Node", "RBAC"]);
    assert.equal(o.anonymousAuth, true);
    assert.equal(o.serviceAccountLookup, true);
    assert.equal(o.authenticationTokenWebhookCacheTtl, 120_000);
    assert.deepEqual(o.oidcSigningAlgs, ["RS256"]);
  });

  it("turns anonymous access off when AlwaysAllow is the only mode, as upstream", () => {
    assert.equal(loadOptions(["--authorization-mode=AlwaysAllow"]).anonymousAuth, false);
    assert.equal(loadOptions(["--authorization-mode=AlwaysAllow,RBAC"]).anonymousAuth, true);
  });

  it("refuses unknown or repeated modes and half-configured webhooks and OIDC", () => {
    for (const args of [
      ["--authorization-mode=ABAC"],
      ["--authorization-mode=RBAC,RBAC"],
      ["--authorization-mode=Webhook"],
      ["--authorization-webhook-config-file=/x"],
      ["--oidc-issuer-url=https://issuer.example"],
      ["--oidc-issuer-url=http://issuer.example", "--oidc-client-id=c"],
      ["--oidc-client-id=c", "--oidc-issuer-url=https://i", "--oidc-required-claim=novalue"],
      ["--authentication-token-webhook-version=v2"],
      ["--requestheader-username-headers="],
    ]) {
      assert.throws(() => loadOptions(args), OptionError, args.join(" "));
    }
  });

  it("accumulates repeatable flags", () => {
    const o = loadOptions([
      "--service-account-key-file=/a.pub",
      "--service-account-key-file=/b.pub",
      "--oidc-required-claim=hd=example.com",
      "--oidc-required-claim=tier=gold",
    ]);
    assert.deepEqual(o.serviceAccountKeyFiles, ["/a.pub", "/b.pub"]);
    assert.deepEqual(o.oidcRequiredClaims, ["hd=example.com", "tier=gold"]);
  });
});
