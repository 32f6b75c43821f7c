import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createLogger, formatLine, goDuration } from "./logging.ts";

function capture(verbosity: number, format: "text" | "json") {
  const lines: string[] = [];
  const log = createLogger({ verbosity, format, out: { write: (l: string) => lines.push(l) > 0 } });
  return { log, lines };
}

describe("logging", () => {
  it("writes a line only when its verbosity is within -v", () => {
    const { log, lines } = capture(2, "json");
    log.info({ v: 3, verb: "GET" }, "HTTP");
    log.info({ v: 2 }, "detail");
    log.trace("debugging");
    log.info("always");
    assert.deepEqual(
      lines.map((l) => JSON.parse(l).msg),
      ["detail", "always"],
    );
  });

  it("formats klog text and json lines with key/value pairs", () => {
    const { log, lines } = capture(3, "text");
    log.warn({ resource: "pods", count: 2 }, "slow");
    assert.match(
      lines[0] ?? "",
      /^W\d{4} \d\d:\d\d:\d\d\.\d{6} +\d+ cluster-gateway\] "slow" resource="pods" count=2\n$/,
    );
    const json = JSON.parse(formatLine('{"level":30,"time":1000,"msg":"m","a":"b"}', 0, "json") ?? "");
    assert.deepEqual(json, { ts: 1, msg: "m", v: 0, a: "b" });
  });

  it("never writes credential-named values, at any level", () => {
    const { log, lines } = capture(10, "json");
    log.info({ headers: { authorization: "Bearer s3cret" }, token: "s3cret", password: "s3cret" }, "x");
    assert.equal(lines.length, 1);
    assert.doesNotMatch(lines[0] ?? "", /s3cret/);
  });

  it("prints latencies as Go does", () => {
    assert.equal(goDuration(0.5), "500µs");
    assert.equal(goDuration(12.5), "12.5ms");
    assert.equal(goDuration(1500), "1.5s");
  });
});
