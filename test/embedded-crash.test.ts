// Kill a process that is writing to (and compacting) the embedded store with SIGKILL, reopen the
// store, and check that every write it acknowledged is there with its revision, that the retained
// history replays with previous values, and that revisions continue above everything committed.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { after, it } from "node:test";
import {
  eventKey,
  eventRevision,
  type Revision,
  type Storage,
  TooOldError,
  type WatchEvent,
} from "../backends/contract/index.ts";
import { openEmbeddedStorage } from "../backends/embedded/index.ts";

const writerScript = new URL("./support/embedded-writer.ts", import.meta.url).pathname;
const root = await mkdtemp(join(tmpdir(), "embedded-crash-"));
after(() => rm(root, { recursive: true, force: true }));

interface Ack {
  readonly op: string;
  readonly key: string;
  readonly revision: Revision;
}

/** Run the writer until it has acknowledged `killAfter` writes, SIGKILL it, return every ack read. */
async function runAndKill(dir: string, tag: string, killAfter: number): Promise<Ack[]> {
  const child = spawn(process.execPath, [writerScript, dir, tag, "32"], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  const exited = once(child, "exit");
  const guard = setTimeout(() => child.kill("SIGKILL"), 30_000);
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk;
  });
  const acks: Ack[] = [];
  let compactions = 0;
  let killed = false;
  for await (const line of createInterface({ input: child.stdout })) {
    if (line === "ready") continue;
    const [op = "", key = "", revision = ""] = line.split(" ");
    if (op === "compacted") compactions++;
    else acks.push({ op, key, revision: Number(revision) });
    // Kill mid-stream, once the writer has compacted at least once.
    if (!killed && acks.length >= killAfter && compactions > 0) killed = child.kill("SIGKILL");
  }
  const [code, signal] = await exited;
  clearTimeout(guard);
  assert.ok(killed, `writer stopped after ${acks.length} acks (code ${code}, signal ${signal}): ${stderr}`);
  assert.equal(signal, "SIGKILL");
  return acks;
}

/** Every retained event under `prefix` up to the current revision, and where history starts. */
async function history(
  storage: Storage,
  prefix: string,
): Promise<{ from: Revision; events: Map<Revision, WatchEvent> }> {
  const current = await storage.currentRevision();
  const events = new Map<Revision, WatchEvent>();
  let from = 0;
  for (;;) {
    const ac = new AbortController();
    try {
      if (current > from) {
        for await (const event of storage.watch(prefix, from, ac.signal)) {
          events.set(eventRevision(event), event);
          if (eventRevision(event) >= current) break;
        }
      }
      return { from, events };
    } catch (err) {
      if (!(err instanceof TooOldError)) throw err;
      from = err.oldest;
    } finally {
      ac.abort();
    }
  }
}

it("keeps every acknowledged write across SIGKILL and continues the revisions", async () => {
  const dir = join(root, "store");
  for (const [round, killAfter] of [400, 900].entries()) {
    const acks = await runAndKill(dir, `r${round}`, killAfter);
    assert.ok(acks.length >= killAfter);

    const storage = await openEmbeddedStorage({ dir });
    try {
      await storage.compact(0); // lets a cleanup the crash interrupted finish first
      const current = await storage.currentRevision();
      const { from, events } = await history(storage, "/crash/");
      for (const ack of acks) {
        const stored = await storage.get(ack.key);
        assert.ok(stored, `${ack.op} of ${ack.key} at ${ack.revision} is present`);
        if (ack.op === "create") assert.equal(stored.createRevision, ack.revision);
        else assert.equal(stored.modRevision, ack.revision, `update of ${ack.key}`);
        if (ack.revision > from) {
          const event = events.get(ack.revision);
          assert.ok(event && eventKey(event) === ack.key, `history holds revision ${ack.revision}`);
          if (ack.op === "update") assert.ok(event.type === "put" && event.prev, "with its previous value");
        }
      }
      assert.ok(from > 0, "the writer compacted");
      assert.ok(current >= Math.max(...acks.map((a) => a.revision)));
      const next = await storage.create(`/crash/after-r${round}`, "{}");
      assert.ok(next.modRevision > current, "revisions continue above everything committed");
    } finally {
      await storage.close();
    }
  }
});
