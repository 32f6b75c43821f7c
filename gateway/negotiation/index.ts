// Content negotiation: Accept and Content-Type, body decoding, Table and PartialObjectMetadata
// conversions, response and watch-event encoding.
export * from "./json-decode.ts";
export * from "./media-type.ts";
export * from "./partial-metadata.ts";
export * from "./table.ts";
export * from "./transform.ts";
export * from "./watch-frame.ts";
export * from "./yaml-decode.ts";
