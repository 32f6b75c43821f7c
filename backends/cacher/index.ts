export * from "./cacher.ts";
export * from "./continue-token.ts";
export * from "./errors.ts";
export { type ChangeType, defaultHistoryBytes, HistoryBudget, type HistoryEntry } from "./history.ts";
export * from "./item.ts";
export * from "./read-options.ts";
export * from "./watcher.ts";
