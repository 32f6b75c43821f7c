// The on-disk layout of the embedded store and the lmdb settings that make its commits durable.
//
// One lmdb environment holds three named databases:
//   objects  key → createRevision, with the entry's lmdb version = modRevision. It is the index of
//            live keys; the value itself lives in the log record of its modRevision.
//   log      revision → binary record (log-record.ts): the event at that revision.
//   meta     "compacted" → the compaction point; "swept" → how far log cleanup has got.
// There is no stored revision counter: the current revision is the highest log key (or the
// compaction point when compaction removed that record), so the counter is by construction written
// in the same transaction as the object and its event.

import { mkdirSync } from "node:fs";
import { type Database, open, type RootDatabase, type RootDatabaseOptionsWithPath } from "lmdb";
import type { Revision } from "../contract/index.ts";

export interface StoreDatabases {
  readonly env: RootDatabase;
  readonly objects: Database<Revision, string>;
  readonly log: Database<Buffer, Revision>;
  readonly meta: Database<Revision, MetaKey>;
}

export type MetaKey = "compacted" | "swept";

export function openDatabases(dir: string, sync: boolean): StoreDatabases {
  // The files hold every object, Secrets included: only the owner may read them. lmdb-js creates
  // the directory with the umask's mode unless it exists, and takes the files' mode as
  // permissionsMode (default 0664), which its types do not declare.
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const options: RootDatabaseOptionsWithPath & { permissionsMode: number } = {
    permissionsMode: 0o600,
    path: dir,
    // `dir` is a directory even when its name contains a dot.
    noSubdir: false,
    maxDbs: 4,
    // Durable mode: lmdb commits each batch with an fdatasync of the data pages and a synchronous
    // meta-page write before it flags the batch committed, and lmdb-js resolves a write's promise
    // only after that flag. So a resolved write is on disk, and what readers see is durable too.
    // overlappingSync would resolve on commit and flush afterwards (visible before durable), and it
    // uses a different meta-page layout, so it stays off in both modes to keep one file format.
    overlappingSync: false,
    // sync=false (`--storage-sync=false`): commits write their pages to the OS but never fsync;
    // a write resolves once committed. Acknowledged writes survive a crash of this process, not a
    // crash or power loss of the machine, which may lose recent writes or, as lmdb warns for
    // NOSYNC, damage the files.
    noSync: !sync,
  };
  const env = open(options);
  return {
    env,
    objects: env.openDB<Revision, string>({ name: "objects", useVersions: true }),
    log: env.openDB<Buffer, Revision>({ name: "log", encoding: "binary" }),
    meta: env.openDB<Revision, MetaKey>({ name: "meta" }),
  };
}
