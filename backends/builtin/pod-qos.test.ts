import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { JsonObject } from "../common/json.ts";
import { podQosClass } from "./pod-qos.ts";

type Resources = { requests?: JsonObject; limits?: JsonObject };

function pod(containers: Resources[], init: Resources[] = []): JsonObject {
  const c = (r: Resources, i: number) => ({ name: `c${i}`, image: "busybox", resources: r });
  return { spec: { containers: containers.map(c), initContainers: init.map(c) } };
}

describe("podQosClass", () => {
  it("is BestEffort without cpu or memory amounts (zero and other resources do not count)", () => {
    assert.equal(podQosClass({}), "BestEffort");
    assert.equal(podQosClass(pod([{}])), "BestEffort");
    assert.equal(podQosClass(pod([{ requests: { cpu: "0" }, limits: { memory: 0 } }])), "BestEffort");
    assert.equal(
      podQosClass(pod([{ limits: { "ephemeral-storage": "1Gi", "nvidia.com/gpu": 1 } }])),
      "BestEffort",
    );
  });

  it("is Guaranteed when every container limits cpu and memory and requests equal limits", () => {
    const both = { cpu: "500m", memory: "1Gi" };
    assert.equal(podQosClass(pod([{ limits: both, requests: both }])), "Guaranteed");
    // Equal as amounts, whatever the spelling.
    assert.equal(
      podQosClass(
        pod([{ limits: { cpu: 0.5, memory: "1024Mi" }, requests: { cpu: "500m", memory: "1073741824" } }]),
      ),
      "Guaranteed",
    );
    // Sums are compared, across containers and init containers.
    assert.equal(
      podQosClass(
        pod(
          [{ limits: { cpu: "1", memory: "1Gi" }, requests: { cpu: "300m", memory: "1Gi" } }],
          [{ limits: { cpu: "1", memory: "1Gi" }, requests: { cpu: "1700m", memory: "1Gi" } }],
        ),
      ),
      "Guaranteed",
    );
  });

  it("is Burstable otherwise", () => {
    assert.equal(podQosClass(pod([{ requests: { cpu: "100m" } }])), "Burstable");
    assert.equal(podQosClass(pod([{ limits: { cpu: "1" }, requests: { cpu: "1" } }])), "Burstable");
    assert.equal(
      podQosClass(pod([{ limits: { cpu: "1", memory: "1Gi" }, requests: { cpu: "500m", memory: "1Gi" } }])),
      "Burstable",
    );
    // One container without limits makes the pod Burstable.
    const both = { cpu: "1", memory: "1Gi" };
    assert.equal(podQosClass(pod([{ limits: both, requests: both }, {}])), "Burstable");
    // A resource requested but not limited.
    assert.equal(
      podQosClass(
        pod([
          { limits: both, requests: { ...both, cpu: "1" } },
          { requests: { memory: "1Mi" }, limits: both },
        ]),
      ),
      "Burstable",
    );
  });
});
