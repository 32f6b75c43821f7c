// The MongoDB backend: `openMongoStorage({ uri: "mongodb://host/?replicaSet=rs0" })`.
// Needs a replica set (or a sharded cluster): every write is a multi-document transaction.

import { MongoClient, type MongoClientOptions } from "mongodb";
import type { Registry } from "prom-client";
import type { Revision } from "../contract/index.ts";
import { REVISION_ID, readRevision } from "./documents.ts";
import type { FollowMode } from "./follower.ts";
import { mongoMetrics } from "./metrics.ts";
import { collections, isUnavailable, MongoStorage } from "./storage.ts";

export type { FollowMode } from "./follower.ts";
export { MongoStorage } from "./storage.ts";

export interface MongoStorageOptions {
  /** A MongoDB connection string; credentials and TLS options go in it, as the driver takes them. */
  readonly uri: string;
  /** Database holding the collections. Default: the one named in the URI, else `gateway`. */
  readonly database?: string | undefined;
  /** Collections are `<prefix>_objects`, `<prefix>_log`, `<prefix>_meta`. Default `registry`. */
  readonly prefix?: string | undefined;
  /**
   * How watches follow the event log: `auto` (default) uses a change stream where the server
   * has them and polls otherwise.
   */
  readonly follow?: FollowMode | "auto";
  /** Polling: pause between reads of the log when nothing new came. Default 100 ms. */
  readonly pollIntervalMs?: number;
  /** How long a call waits for a reachable server before failing with Unavailable. Default 5 s. */
  readonly serverSelectionTimeoutMs?: number;
  /** A write colliding with other writers gives up after this long. Default 30 s. */
  readonly writeRetryMs?: number;
  /** Largest connection pool. Default: the driver's (100). */
  readonly maxPoolSize?: number;
  /** Errors that reach no caller (the log follower's), for the process log. */
  readonly onError?: (err: unknown, context: string) => void;
  /** The gateway's registry: the backend adds its error and retry counters (metrics.ts). */
  readonly metrics?: Registry | undefined;
}

/** The server cannot be used: a bad URI, no replica set, unreachable. Start refuses with it. */
export class MongoStartError extends Error {
  override name = "MongoStartError";
}

const PREFIX = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

/** Why `prefix` cannot name the collections, or undefined when it can. */
export function invalidPrefix(prefix: string): string | undefined {
  return PREFIX.test(prefix)
    ? undefined
    : `must be 1 to 64 letters, digits, "_" or "-", starting with a letter or digit: ${JSON.stringify(prefix)}`;
}

/** Server error codes for "no such stage/command": the server has no change streams. */
const NO_CHANGE_STREAMS = new Set([20, 40324, 40573, 115, 238]);

/**
 * Connects, checks the server can run the backend (a replica set, so transactions), and starts
 * following the event log. Throws MongoStartError for what an operator must fix.
 */
export async function openMongoStorage(options: MongoStorageOptions): Promise<MongoStorage> {
  const prefix = options.prefix ?? "registry";
  const bad = invalidPrefix(prefix);
  if (bad) throw new MongoStartError(`--mongodb-prefix ${bad}`);
  const clientOptions: MongoClientOptions = {
    writeConcern: { w: "majority" },
    readConcern: { level: "majority" },
    ...(options.maxPoolSize ? { maxPoolSize: options.maxPoolSize } : {}),
  };
  // The URI's own setting wins; otherwise a call fails fast while the server is away.
  if (!/[?&]serverSelectionTimeoutMS=/i.test(options.uri))
    clientOptions.serverSelectionTimeoutMS = options.serverSelectionTimeoutMs ?? 5000;
  // A server that stops answering without closing (a partition) fails calls instead of hanging them.
  if (!/[?&]socketTimeoutMS=/i.test(options.uri)) clientOptions.socketTimeoutMS = 30_000;
  let client: MongoClient;
  try {
    client = new MongoClient(options.uri, clientOptions);
  } catch (err) {
    // The driver's message says what is wrong without repeating the URI (it may hold a password).
    throw new MongoStartError(`--mongodb-uri does not parse: ${(err as Error).message}`);
  }
  try {
    await client.connect();
    const hello = await client.db("admin").command({ hello: 1 });
    if (typeof hello.setName !== "string" && hello.msg !== "isdbgrid") {
      throw new MongoStartError(
        "the MongoDB server is not a replica set: the backend writes in transactions, which need one " +
          "(start mongod with --replSet, or connect to a replica set or sharded cluster)",
      );
    }
    const db = client.db(options.database ?? (client.options.dbName || "gateway"));
    const c = collections(db, prefix);
    const mode =
      options.follow === "poll" || options.follow === "changeStream"
        ? options.follow
        : (await hasChangeStreams(db, c.log.collectionName))
          ? "changeStream"
          : "poll";
    // Watches start from the last committed revision; older ones are read from the log.
    const published: Revision = readRevision(
      (await c.meta.findOne({ _id: REVISION_ID })) as Record<string, unknown> | null,
      "revision counter",
    );
    return new MongoStorage(
      client,
      c,
      {
        mode,
        pollIntervalMs: options.pollIntervalMs ?? 100,
        holeTimeoutMs: 5000,
        writeRetryMs: options.writeRetryMs ?? 30_000,
        ...(options.onError ? { onError: options.onError } : {}),
        ...(options.metrics ? { metrics: mongoMetrics(options.metrics) } : {}),
      },
      published,
    );
  } catch (err) {
    await client.close().catch(() => undefined);
    if (err instanceof MongoStartError) throw err;
    if (isUnavailable(err)) throw new MongoStartError(`cannot reach MongoDB: ${(err as Error).message}`);
    throw err;
  }
}

/** Asks for a change stream on the log: servers without them say so with an error code. */
async function hasChangeStreams(db: ReturnType<MongoClient["db"]>, collection: string): Promise<boolean> {
  try {
    const res = await db.command({ aggregate: collection, pipeline: [{ $changeStream: {} }], cursor: {} });
    const id = (res.cursor as { id?: unknown } | undefined)?.id;
    if (id) await db.command({ killCursors: collection, cursors: [id] }).catch(() => undefined);
    return true;
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    if (typeof code === "number" && NO_CHANGE_STREAMS.has(code)) return false;
    throw err;
  }
}
