export { MemoryStorage } from "./memory.ts";
