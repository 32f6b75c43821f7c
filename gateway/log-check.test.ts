import assert from "node:assert/strict";
import { Writable } from "node:stream";
import { it } from "node:test";
import { logCheck } from "./log-check.ts";

it("fails once the log stream's backlog passes the limit", () => {
  // A destination that never finishes a write, like a pipe nobody reads.
  const stuck = new Writable({ highWaterMark: 16, write() {} });
  const check = logCheck(stuck, 100);
  check();
  stuck.write("x".repeat(50));
  check();
  stuck.write("x".repeat(100));
  assert.throws(check, /bytes waiting to be written/);
});
