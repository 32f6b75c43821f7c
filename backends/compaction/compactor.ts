// Periodic compaction shared by every backend: at each tick, compact up to the revision that
// was current one interval ago, so history stays replayable for at least one interval.
import type { Revision, Storage } from "../contract/index.ts";

export interface Compactor {
  /** Run one tick now (tests, shutdown). */
  tick(): Promise<void>;
  stop(): void;
}

export function startCompactor(
  storage: Storage,
  intervalMs: number,
  onError: (err: unknown) => void = () => {},
): Compactor {
  let previous: Revision | undefined;
  let running = false;
  const tick = async () => {
    if (running) return;
    running = true;
    try {
      const current = await storage.currentRevision();
      if (previous !== undefined && previous > 0) await storage.compact(previous);
      previous = current;
    } catch (err) {
      onError(err);
    } finally {
      running = false;
    }
  };
  const timer = intervalMs > 0 ? setInterval(tick, intervalMs) : undefined;
  timer?.unref();
  return {
    tick,
    stop: () => clearInterval(timer),
  };
}
