// A de-duplicating work queue, as upstream's: an item queued while it is being processed is
// processed again afterwards, never twice at once; failures come back after a growing delay.

const BASE_DELAY_MS = 50;
const MAX_DELAY_MS = 30_000;

export class WorkQueue<T> {
  readonly #queue = new Set<T>();
  readonly #processing = new Set<T>();
  readonly #again = new Set<T>();
  readonly #failures = new Map<T, number>();
  readonly #timers = new Set<ReturnType<typeof setTimeout>>();
  #waiters: (() => void)[] = [];
  #closed = false;

  get length(): number {
    return this.#queue.size;
  }

  add(item: T): void {
    if (this.#closed) return;
    if (this.#processing.has(item)) {
      this.#again.add(item);
      return;
    }
    this.#queue.add(item);
    this.#waiters.shift()?.();
  }

  /** Queue again after the item's next back-off delay. */
  retry(item: T, minDelayMs = 0): void {
    const failures = (this.#failures.get(item) ?? 0) + 1;
    this.#failures.set(item, failures);
    const delay = Math.max(minDelayMs, Math.min(MAX_DELAY_MS, BASE_DELAY_MS * 2 ** (failures - 1)));
    const timer = setTimeout(() => {
      this.#timers.delete(timer);
      this.add(item);
    }, delay);
    timer.unref?.();
    this.#timers.add(timer);
  }

  /** The item went through: its back-off starts over. */
  forget(item: T): void {
    this.#failures.delete(item);
  }

  /** The next item, or undefined once the queue is closed. */
  async get(): Promise<T | undefined> {
    for (;;) {
      if (this.#closed) return undefined;
      const first = this.#queue.values().next();
      if (!first.done) {
        this.#queue.delete(first.value);
        this.#processing.add(first.value);
        return first.value;
      }
      await new Promise<void>((resolve) => this.#waiters.push(resolve));
    }
  }

  done(item: T): void {
    this.#processing.delete(item);
    if (this.#again.delete(item)) this.add(item);
  }

  close(): void {
    this.#closed = true;
    for (const timer of this.#timers) clearTimeout(timer);
    this.#timers.clear();
    for (const wake of this.#waiters) wake();
    this.#waiters = [];
  }
}
