export { EmbeddedStorage, type EmbeddedStorageOptions, openEmbeddedStorage } from "./embedded.ts";
