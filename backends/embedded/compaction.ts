// Log cleanup after compaction. Which records below the compaction point C must stay:
//
// A record is needed while something refers to it: `objects` refers to the record of each live
// key's modRevision (that record holds the value), and every event refers to the record of its
// key's previous revision (the event's `prev`). Events at or below C are gone after compaction, so
// a record r <= C is dropped exactly when
//   - it is a DELETE record (nothing refers to a delete), or
//   - a later event s <= C of the same key names r as its prev (r was superseded below C).
// What remains below C is the last put of each key that was not deleted at or below C: the live
// value, or the `prev` of the key's first event above C. That is the latest state of every key.
//
// Walking (swept, C] in revision order finds both cases from the records themselves, with no
// per-key index. Each batch removes its records and advances "swept" in one transaction, so a
// crash in the middle resumes where the last committed batch ended, and batches are queued like
// ordinary writes, so no single commit carries a large deletion.

import type { Revision } from "../contract/index.ts";
import type { StoreDatabases } from "./lmdb-env.ts";
import { DELETE, recordKind, recordPrevRevision } from "./log-record.ts";

/** Records scanned per cleanup transaction; removals per transaction are at most twice this. */
export const SWEEP_BATCH = 500;

/**
 * Clean up part of (from, to]. Resolves with the revision up to which cleanup is now durable;
 * call again until it reaches `to`.
 */
export async function sweepBatch(
  dbs: StoreDatabases,
  from: Revision,
  to: Revision,
  batchSize = SWEEP_BATCH,
): Promise<Revision> {
  const { env, log, meta } = dbs;
  const removals: Revision[] = [];
  let scanned = 0;
  let last = from;
  // Records at or below `to` no longer change, so they can be read outside the write transaction.
  const txn = env.useReadTransaction();
  try {
    for (const { key: revision, value } of log.getRange({
      start: from + 1,
      end: to + 1,
      limit: batchSize,
      transaction: txn,
    })) {
      scanned++;
      last = revision;
      const prev = recordPrevRevision(value);
      if (prev > 0) removals.push(prev);
      if (recordKind(value) === DELETE) removals.push(revision);
    }
  } finally {
    txn.done();
  }
  const reached = scanned < batchSize ? to : last;
  await env.batch(() => {
    for (const revision of removals) log.remove(revision);
    meta.put("swept", reached);
  });
  return reached;
}
