import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { naming } from "../../naming/naming.ts";
import { eventsConversion } from "./events.ts";

const convert = eventsConversion(naming("kubernetes"));

const core = {
  apiVersion: "v1",
  kind: "Event",
  metadata: { name: "e", namespace: "default" },
  involvedObject: { kind: "Pod", name: "p", namespace: "default" },
  reason: "Started",
  message: "started container",
  source: { component: "kubelet", host: "n1" },
  firstTimestamp: "2026-01-01T00:00:00Z",
  lastTimestamp: "2026-01-01T00:01:00Z",
  count: 2,
  type: "Normal",
  eventTime: null,
  series: { count: 2, lastObservedTime: "2026-01-01T00:01:00.000000Z" },
  action: "Start",
  related: { kind: "Node", name: "n1" },
  reportingComponent: "kubelet",
  reportingInstance: "n1",
};

describe("events.<domain>/v1 conversion", () => {
  it("renames every field both ways without loss", () => {
    const events = convert(core, "v1");
    assert.deepEqual(events, {
      apiVersion: "events.k8s.io/v1",
      kind: "Event",
      metadata: core.metadata,
      regarding: core.involvedObject,
      reason: "Started",
      note: "started container",
      deprecatedSource: core.source,
      deprecatedFirstTimestamp: core.firstTimestamp,
      deprecatedLastTimestamp: core.lastTimestamp,
      deprecatedCount: 2,
      type: "Normal",
      eventTime: null,
      series: core.series,
      action: "Start",
      related: core.related,
      reportingController: "kubelet",
      reportingInstance: "n1",
    });
    assert.deepEqual(convert(events, "core"), core);
  });

  it("leaves an object already in the asked form alone", () => {
    assert.deepEqual(convert(core, "core"), core);
    const events = convert(core, "v1");
    assert.deepEqual(convert(events, "v1"), events);
  });
});
