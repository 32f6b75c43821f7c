export * from "./depth.ts";
export * from "./errors.ts";
export * from "./field-error.ts";
export * from "./registry.ts";
export * from "./strategy.ts";
export * from "./unknown-fields.ts";
