export * from "./errors.ts";
export * from "./storage.ts";
