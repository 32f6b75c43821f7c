// The replica flags (issue 23): --pki-dir and the --leader-elect family with upstream's names,
// defaults and consistency rules.
import assert from "node:assert/strict";
import { it } from "node:test";
import { loadOptions, OptionError } from "./options.ts";

const none = () => {
  throw new Error("no config file");
};

it("defaults to upstream's controller-manager election: on, 15s, 10s, 2s; --pki-dir unset", () => {
  const o = loadOptions([], none);
  assert.equal(o.leaderElect, true);
  assert.equal(o.leaderElectLeaseDuration, 15_000);
  assert.equal(o.leaderElectRenewDeadline, 10_000);
  assert.equal(o.leaderElectRetryPeriod, 2_000);
  assert.equal(o.pkiDir, undefined);
});

it("reads the flags, durations as the other duration flags", () => {
  const o = loadOptions(
    [
      "--pki-dir=/srv/pki",
      "--leader-elect=false",
      "--leader-elect-lease-duration=1m",
      "--leader-elect-renew-deadline=40s",
      "--leader-elect-retry-period=500ms",
    ],
    none,
  );
  assert.equal(o.pkiDir, "/srv/pki");
  assert.equal(o.leaderElect, false);
  assert.equal(o.leaderElectLeaseDuration, 60_000);
  assert.equal(o.leaderElectRenewDeadline, 40_000);
  assert.equal(o.leaderElectRetryPeriod, 500);
});

it("refuses timings that would let a partitioned leader outlive its lease", () => {
  const refused = (args: string[], message: RegExp) =>
    assert.throws(
      () => loadOptions(args, none),
      (err: Error) => err instanceof OptionError && message.test(err.message),
    );
  refused(
    ["--leader-elect-renew-deadline=15s"],
    /lease-duration must be greater than --leader-elect-renew-deadline/,
  );
  refused(["--leader-elect-retry-period=9s"], /renew-deadline must be greater than 1.2/);
  refused(["--leader-elect-retry-period=0s"], /must be positive/);
  refused(["--leader-elect-lease-duration=soon"], /--leader-elect-lease-duration/);
});
