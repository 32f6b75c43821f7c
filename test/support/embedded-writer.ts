// Child process for test/embedded-crash.test.ts: writes to an embedded store as fast as it can and
// prints one line per acknowledged write, `<op> <key> <revision>`, the moment its promise resolves,
// while compacting all but the last 300 revisions every 50 ms (printing `compacted - <revision>`). The parent kills it with
// SIGKILL mid-stream. Usage: embedded-writer.ts <dir> <tag> <writers>
import { openEmbeddedStorage } from "../../backends/embedded/index.ts";

const [dir, tag = "run", writersArg = "32"] = process.argv.slice(2);
if (!dir) throw new Error("usage: embedded-writer.ts <dir> <tag> <writers>");
const storage = await openEmbeddedStorage({ dir });
// Pipes are synchronous on Linux: a printed line is in the pipe before the next write starts.
const ack = (op: string, key: string, revision: number) => process.stdout.write(`${op} ${key} ${revision}\n`);

async function writer(id: number): Promise<never> {
  for (let n = 0; ; n++) {
    const key = `/crash/${tag}/w${id}/${n}`;
    const created = await storage.create(key, JSON.stringify({ id, n, phase: "created" }));
    ack("create", key, created.modRevision);
    const updated = await storage.update(
      key,
      JSON.stringify({ id, n, phase: "updated" }),
      created.modRevision,
    );
    ack("update", key, updated.modRevision);
  }
}

async function compactor(): Promise<never> {
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    const target = (await storage.currentRevision()) - 300;
    if (target <= 0) continue;
    await storage.compact(target);
    process.stdout.write(`compacted - ${target}\n`);
  }
}

process.stdout.write("ready\n");
await Promise.all([compactor(), ...Array.from({ length: Number(writersArg) }, (_, i) => writer(i))]);
