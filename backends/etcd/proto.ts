// Typed encoders and decoders for the etcd messages declared in etcd.proto. The .proto is
// parsed once at load; protobufjs then generates a codec per message type.

import { fileURLToPath } from "node:url";
import protobuf from "protobufjs";

/** protobufjs decodes int64 as a Long object (or a number when Long is unavailable). */
export type Int64 = number | { toNumber(): number };

export function toNumber(value: Int64 | null | undefined): number {
  if (value === null || value === undefined) return 0;
  return typeof value === "number" ? value : value.toNumber();
}

export interface ResponseHeader {
  readonly revision: Int64;
}

export interface KeyValue {
  readonly key: Uint8Array | undefined;
  readonly createRevision: Int64;
  readonly modRevision: Int64;
  readonly value: Uint8Array | undefined;
}

export const EVENT_PUT = 0;
export const EVENT_DELETE = 1;

export interface Event {
  readonly type: number;
  readonly kv: KeyValue | null;
  readonly prevKv: KeyValue | null;
}

export interface RangeRequest {
  key: Uint8Array;
  rangeEnd?: Uint8Array;
  limit?: number;
  revision?: number;
  serializable?: boolean;
  keysOnly?: boolean;
  countOnly?: boolean;
}

export interface RangeResponse {
  readonly header: ResponseHeader | null;
  readonly kvs: KeyValue[];
  readonly more: boolean;
  readonly count: Int64;
}

export interface PutRequest {
  key: Uint8Array;
  value: Uint8Array;
  prevKv?: boolean;
}

export interface PutResponse {
  readonly header: ResponseHeader | null;
  readonly prevKv: KeyValue | null;
}

export interface DeleteRangeRequest {
  key: Uint8Array;
  rangeEnd?: Uint8Array;
  prevKv?: boolean;
}

export interface DeleteRangeResponse {
  readonly header: ResponseHeader | null;
  readonly deleted: Int64;
  readonly prevKvs: KeyValue[];
}

export type RequestOp =
  | { requestRange: RangeRequest }
  | { requestPut: PutRequest }
  | { requestDeleteRange: DeleteRangeRequest };

export interface ResponseOp {
  readonly responseRange: RangeResponse | null;
  readonly responsePut: PutResponse | null;
  readonly responseDeleteRange: DeleteRangeResponse | null;
}

export const COMPARE_EQUAL = 0;
export const COMPARE_GREATER = 1;
export const TARGET_CREATE = 1;
export const TARGET_MOD = 2;

export type Compare = { result: number; key: Uint8Array } & (
  | { target: typeof TARGET_CREATE; createRevision: number }
  | { target: typeof TARGET_MOD; modRevision: number }
);

export interface TxnRequest {
  compare: Compare[];
  success: RequestOp[];
  failure: RequestOp[];
}

export interface TxnResponse {
  readonly header: ResponseHeader | null;
  readonly succeeded: boolean;
  readonly responses: ResponseOp[];
}

export interface CompactionRequest {
  revision: number;
  physical?: boolean;
}

export interface CompactionResponse {
  readonly header: ResponseHeader | null;
}

export interface WatchCreateRequest {
  key: Uint8Array;
  rangeEnd?: Uint8Array;
  startRevision?: number;
  progressNotify?: boolean;
  prevKv?: boolean;
  fragment?: boolean;
}

export type WatchRequest =
  | { createRequest: WatchCreateRequest }
  | { cancelRequest: { watchId: number } }
  | { progressRequest: Record<string, never> };

export interface WatchResponse {
  readonly header: ResponseHeader | null;
  readonly watchId: Int64;
  readonly created: boolean;
  readonly canceled: boolean;
  readonly compactRevision: Int64;
  readonly cancelReason: string;
  readonly fragment: boolean;
  readonly events: Event[];
}

/** Turns one message type into bytes and back, in the shape grpc-js wants. */
export interface Codec<T> {
  serialize(value: T): Buffer;
  deserialize(bytes: Buffer): T;
}

const root = protobuf.loadSync(fileURLToPath(new URL("./etcd.proto", import.meta.url)));

function codec<T>(name: string): Codec<T> {
  const type = root.lookupType(`etcdserverpb.${name}`);
  return {
    serialize(value) {
      // The interfaces above mirror the .proto field for field, so protobufjs can encode the
      // plain object directly without a fromObject copy.
      const bytes = type.encode(value as unknown as protobuf.Message).finish();
      return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    },
    deserialize(bytes) {
      return type.decode(bytes) as unknown as T;
    },
  };
}

export const codecs = {
  RangeRequest: codec<RangeRequest>("RangeRequest"),
  RangeResponse: codec<RangeResponse>("RangeResponse"),
  TxnRequest: codec<TxnRequest>("TxnRequest"),
  TxnResponse: codec<TxnResponse>("TxnResponse"),
  CompactionRequest: codec<CompactionRequest>("CompactionRequest"),
  CompactionResponse: codec<CompactionResponse>("CompactionResponse"),
  WatchRequest: codec<WatchRequest>("WatchRequest"),
  WatchResponse: codec<WatchResponse>("WatchResponse"),
};
