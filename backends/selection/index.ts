export * from "./field-selector.ts";
export * from "./label-selector.ts";
