import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { platform, readBuild, versionBody, versionInfo } from "./version.ts";

// The semantic-version shape clients parse gitVersion with (major.minor.patch, optional
// pre-release, optional build metadata).
const semver =
  /^v(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?(?:\+([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?$/;

describe("/version", () => {
  it("answers as 1.27.16 with the product as build metadata", () => {
    const info = versionInfo({
      productVersion: "0.1.0",
      gitCommit: "0123456789abcdef0123456789abcdef01234567",
      gitTreeState: "clean",
      buildDate: "2025-01-02T03:04:05Z",
    });
    assert.equal(info.major, "1");
    assert.equal(info.minor, "27");
    assert.equal(info.gitVersion, "v1.27.16+cluster-gateway.0.1.0");
    const match = semver.exec(info.gitVersion);
    assert.ok(match);
    assert.deepEqual(match.slice(1, 5), ["1", "27", "16", undefined]);
    assert.equal(info.gitCommit, "0123456789abcdef0123456789abcdef01234567");
    assert.equal(info.gitTreeState, "clean");
    assert.equal(info.buildDate, "2025-01-02T03:04:05Z");
  });

  it("keeps gitVersion a valid semantic version whatever the product version holds", () => {
    for (const productVersion of ["0.2.0-rc.1", "1.0.0+build.5", "weird version/..x"]) {
      const { gitVersion } = versionInfo({ productVersion });
      assert.match(gitVersion, semver, gitVersion);
      assert.ok(gitVersion.startsWith("v1.27.16+cluster-gateway."), gitVersion);
    }
  });

  it("defaults to package.json's version and the running build", () => {
    const info = versionInfo();
    assert.match(info.gitVersion, /^v1\.27\.16\+cluster-gateway\.\d+\.\d+\.\d+/);
    assert.match(info.buildDate, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    assert.notEqual(info.buildDate, "1970-01-01T00:00:00Z");
    assert.match(info.goVersion, /^node\d+\.\d+\.\d+$/);
  });

  it("reads a checkout's commit, tree state and commit date; outside one, the start time", async () => {
    const dir = await mkdtemp(join(tmpdir(), "cg-version-"));
    try {
      assert.deepEqual(readBuild(dir), {
        buildDate: `${new Date(performance.timeOrigin).toISOString().slice(0, 19)}Z`,
      });
      const git = (...args: string[]) =>
        execFileSync("git", ["-C", dir, "-c", "user.name=t", "-c", "user.email=t@example.com", ...args], {
          encoding: "utf8",
          env: {
            ...process.env,
            GIT_COMMITTER_DATE: "2024-05-06T07:08:09Z",
            GIT_AUTHOR_DATE: "2020-01-01T00:00:00Z",
          },
        });
      git("init", "-q");
      await writeFile(join(dir, "a.txt"), "a\n");
      git("add", "a.txt");
      git("commit", "-q", "-m", "one");
      const commit = git("rev-parse", "HEAD").trim();
      assert.deepEqual(readBuild(dir), {
        gitCommit: commit,
        gitTreeState: "clean",
        buildDate: "2024-05-06T07:08:09Z",
      });
      await writeFile(join(dir, "a.txt"), "b\n");
      assert.equal(readBuild(dir).gitTreeState, "dirty");
      git("checkout", "-q", "--", "a.txt");
      await writeFile(join(dir, "new.txt"), "untracked\n");
      assert.equal(readBuild(dir).gitTreeState, "dirty");
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("writes the fields in upstream's order, indented, without a trailing newline", () => {
    const body = versionBody(versionInfo({ productVersion: "0.1.0" }));
    assert.deepEqual(Object.keys(JSON.parse(body)), [
      "major",
      "minor",
      "gitVersion",
      "gitCommit",
      "gitTreeState",
      "buildDate",
      "goVersion",
      "compiler",
      "platform",
    ]);
    assert.ok(body.startsWith('{\n  "major": "1",\n  "minor": "27",\n'));
    assert.ok(body.endsWith("}"));
  });

  it("names the platform as Go does", () => {
    assert.equal(platform("linux", "x64"), "linux/amd64");
    assert.equal(platform("linux", "arm64"), "linux/arm64");
    assert.equal(platform("win32", "ia32"), "windows/386");
    assert.equal(platform("darwin", "arm64"), "darwin/arm64");
  });
});
