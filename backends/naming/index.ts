export * from "./naming.ts";
