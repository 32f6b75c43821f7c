export * from "./cache.ts";
export * from "./documents.ts";
export * from "./priority.ts";
export * from "./storage-version-hash.ts";
export * from "./version.ts";
