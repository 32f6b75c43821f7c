import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after } from "node:test";
import { openEmbeddedStorage } from "../backends/embedded/index.ts";
import { storageConformance } from "./storage-conformance.ts";

const dirs: string[] = [];
after(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

storageConformance("embedded", {
  open: async () => {
    const dir = await mkdtemp(join(tmpdir(), "cg-embedded-"));
    dirs.push(dir);
    return openEmbeddedStorage({ dir: join(dir, "store") });
  },
  release: (storage) => storage.close(),
});
