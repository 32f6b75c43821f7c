import assert from "node:assert/strict";
import { once } from "node:events";
import { describe, it } from "node:test";
import { Worker } from "node:worker_threads";
import { defaultPullPolicy, imageTag } from "./image.ts";

const SHA256 = "a".repeat(64);

describe("imageTag", () => {
  const cases: [string, string][] = [
    ["nginx", "latest"],
    ["nginx:latest", "latest"],
    ["nginx:1.25.3-alpine", "1.25.3-alpine"],
    [`nginx@sha256:${SHA256}`, ""],
    [`nginx:latest@sha256:${SHA256}`, "latest"],
    [`nginx:1.25@sha256:${SHA256}`, "1.25"],
    [`nginx@sha512:${"b".repeat(128)}`, ""],
    ["registry.example.com:5000/team/app", "latest"],
    ["registry.example.com:5000/team/app:v2", "v2"],
    ["localhost/app:v1", "v1"],
    ["localhost:5000/app", "latest"],
    ["docker.io/nginx", "latest"],
    ["index.docker.io/library/nginx:1", "1"],
    ["Example.com/app:1", "1"],
    ["Team/app", "latest"], // an uppercase first part is a registry host
    ["a/b/c/d:tag", "tag"],
    ["my_image__x.y-z--w", "latest"],
    // Not references: no tag at all, so IfNotPresent.
    ["", ""],
    ["Nginx", ""],
    ["team/App:1", ""],
    ["nginx:", ""],
    ["nginx:-x", ""],
    ["a___b", ""],
    ["a-", ""],
    ["-a", ""],
    ["a//b", ""],
    [`nginx@sha256:${"A".repeat(64)}`, ""],
    [`nginx@sha256:${"a".repeat(63)}`, ""],
    [`nginx@md5:${"a".repeat(32)}`, ""],
    [SHA256, ""],
    [`${"a".repeat(250)}/b`, ""], // the name is too long once normalized
    [`nginx:${"t".repeat(129)}`, ""],
  ];
  for (const [image, tag] of cases) {
    it(`${JSON.stringify(image.length > 40 ? `${image.slice(0, 40)}…` : image)} has tag ${JSON.stringify(tag)}`, () => {
      assert.equal(imageTag(image), tag);
    });
  }

  it("answers hostile input instead of backtracking without end", async () => {
    const hostile = [
      `${"a".repeat(400)}!`,
      `${"a-".repeat(200)}!`,
      `${"a.".repeat(200)}/!`,
      `${"a".repeat(100_000)}`,
      `${"a-a".repeat(150)}:`,
    ];
    // A regular expression that can match the same text two ways blocks its thread for hours on
    // these, so they run in a worker the test can stop. The deadline bounds a hang; it measures
    // nothing (the answer takes microseconds).
    const worker = new Worker(
      `const { parentPort, workerData } = require("node:worker_threads");
      import(workerData.module).then((m) => parentPort.postMessage(workerData.hostile.map(m.imageTag)));`,
      { eval: true, workerData: { module: new URL("./image.ts", import.meta.url).href, hostile } },
    );
    try {
      const [answers] = await once(worker, "message", { signal: AbortSignal.timeout(60_000) }).catch(() =>
        assert.fail("imageTag did not answer the hostile input"),
      );
      assert.deepEqual(
        answers,
        hostile.map(() => ""),
      );
    } finally {
      await worker.terminate();
    }
  });
});

describe("defaultPullPolicy", () => {
  it("is Always for latest (named or implied) and IfNotPresent otherwise", () => {
    assert.equal(defaultPullPolicy("busybox"), "Always");
    assert.equal(defaultPullPolicy("busybox:latest"), "Always");
    assert.equal(defaultPullPolicy("busybox:1.36"), "IfNotPresent");
    assert.equal(defaultPullPolicy(`busybox@sha256:${SHA256}`), "IfNotPresent");
    assert.equal(defaultPullPolicy("Busybox"), "IfNotPresent");
  });
});
