import { MemoryStorage } from "../backends/memory/index.ts";
import { storageConformance } from "./storage-conformance.ts";

storageConformance("memory", {
  open: async () => new MemoryStorage(),
  release: (storage) => storage.close(),
});
