// The truncate plugin in front of a backend: batches split at the byte limit, events over the
// event limit lose their bodies (annotated), those still too big dropped and reported.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { type AuditBackend, type AuditEvent, encodeEvent, TruncateBackend } from "./backends.ts";

/** The backend behind the plugin: keeps each batch it is handed. */
class Collector implements AuditBackend {
  readonly batches: AuditEvent[][] = [];
  process(events: readonly AuditEvent[]): boolean {
    this.batches.push([...events]);
    return true;
  }
  async shutdown(): Promise<void> {}
}

const size = (ev: AuditEvent) => Buffer.byteLength(encodeEvent(ev)) + 1;
const event = (id: string, level: string, body = ""): AuditEvent => ({
  kind: "Event",
  level,
  auditID: id,
  stage: "ResponseComplete",
  ...(body ? { requestObject: { body }, responseObject: { body } } : {}),
});

describe("TruncateBackend", () => {
  it("splits a batch so each part stays within the batch size", () => {
    const events = ["a", "b", "c", "d", "e"].map((id) => event(id, "Metadata"));
    const one = size(events[0] as AuditEvent);
    const into = new Collector();
    const errors: number[] = [];
    const t = new TruncateBackend(
      into,
      { maxEventSize: one, maxBatchSize: one * 2, annotationKey: "audit.cluster.io/truncated" },
      (_p, n) => errors.push(n),
    );
    assert.equal(t.process(events), true);
    assert.deepEqual(
      into.batches.map((b) => b.map((e) => e.auditID)),
      [["a", "b"], ["c", "d"], ["e"]],
    );
    assert.deepEqual(errors, []);
  });

  it("drops bodies at Request level and above, annotating; drops what is still too big", () => {
    const into = new Collector();
    const errors: [string, number][] = [];
    const t = new TruncateBackend(
      into,
      { maxEventSize: 300, maxBatchSize: 10_000, annotationKey: "audit.k8s.io/truncated" },
      (plugin, n) => errors.push([plugin, n]),
    );
    const big = "x".repeat(400);
    t.process([
      event("kept", "Request", "small"),
      event("cut", "RequestResponse", big),
      { ...event("meta", "Metadata"), userAgent: big },
      { ...event("still", "Request", big), userAgent: big },
    ]);
    const out = into.batches.flat();
    assert.deepEqual(
      out.map((e) => e.auditID),
      ["kept", "cut"],
    );
    assert.deepEqual(out[0]?.requestObject, { body: "small" });
    assert.equal(out[0]?.annotations, undefined);
    assert.equal(out[1]?.requestObject, undefined);
    assert.equal(out[1]?.responseObject, undefined);
    assert.deepEqual(out[1]?.annotations, { "audit.k8s.io/truncated": "true" });
    assert.deepEqual(errors, [["truncate", 2]]);
  });
});
