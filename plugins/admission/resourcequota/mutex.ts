// One task at a time per key (namespace): quota checks and usage writes of a namespace must not
// interleave, or two writes could both fit under a limit that only one of them fits.

export class KeyedMutex {
  readonly #tails = new Map<string, Promise<void>>();

  /**
   * Runs `task` once the key's earlier tasks are done. When `waitMs` passes before its turn,
   * `onTimeout()` is thrown instead and the task never runs.
   */
  async run<T>(key: string, task: () => Promise<T>, waitMs?: number, onTimeout?: () => Error): Promise<T> {
    const previous = this.#tails.get(key) ?? Promise.resolve();
    let release: () => void = () => {};
    const mine = new Promise<void>((resolve) => {
      release = resolve;
    });
    const tail = previous.then(() => mine);
    this.#tails.set(key, tail);
    try {
      if (waitMs !== undefined) {
        let timer: ReturnType<typeof setTimeout> | undefined;
        const expired = new Promise<"expired">((resolve) => {
          timer = setTimeout(() => resolve("expired"), waitMs);
          timer.unref?.();
        });
        const turn = await Promise.race([previous.then(() => "turn" as const), expired]);
        clearTimeout(timer);
        if (turn === "expired") throw onTimeout ? onTimeout() : new Error("timed out");
      } else {
        await previous;
      }
      return await task();
    } finally {
      release();
      if (this.#tails.get(key) === tail) this.#tails.delete(key);
    }
  }
}
