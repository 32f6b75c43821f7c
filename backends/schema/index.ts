export * from "./resource-schema.ts";
