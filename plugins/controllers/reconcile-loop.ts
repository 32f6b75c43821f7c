// One pass at a time over desired state: kicked by informers when something changes and by a
// timer (upstream's period), retried after a failure. A kick that lands during a pass starts
// another one after it, so no change is missed and passes never overlap.
import { setTimeout as delay } from "node:timers/promises";

const RETRY_MS = 1_000;

export class ReconcileLoop {
  readonly #pass: () => Promise<boolean>;
  readonly #periodMs: number;
  #dirty = false;
  #draining: Promise<void> | undefined;
  #signal: AbortSignal | undefined;
  #succeeded = false;
  #attempted = false;

  /** `pass` returns false (or throws) when it has to be tried again. */
  constructor(pass: () => Promise<boolean>, periodMs: number) {
    this.#pass = pass;
    this.#periodMs = periodMs;
  }

  /** True once a pass has succeeded. */
  get succeeded(): boolean {
    return this.#succeeded;
  }

  /** True once a pass has run, whatever its outcome. */
  get attempted(): boolean {
    return this.#attempted;
  }

  /** Runs a pass now and every period until the signal aborts; returns once the last pass ends. */
  async run(signal: AbortSignal): Promise<void> {
    this.#signal = signal;
    while (!signal.aborted) {
      this.kick();
      await delay(this.#periodMs, undefined, { signal }).catch(() => {});
    }
    await this.#draining;
  }

  kick(): void {
    this.#dirty = true;
    if (this.#draining || !this.#signal || this.#signal.aborted) return;
    this.#draining = this.#drain().finally(() => {
      this.#draining = undefined;
      if (this.#dirty && !this.#signal?.aborted) this.kick();
    });
  }

  async #drain(): Promise<void> {
    const signal = this.#signal;
    while (this.#dirty && !signal?.aborted) {
      this.#dirty = false;
      let ok = false;
      try {
        ok = await this.#pass();
      } catch {
        ok = false;
      }
      this.#attempted = true;
      if (ok) {
        this.#succeeded = true;
        continue;
      }
      this.#dirty = true;
      await delay(RETRY_MS, undefined, signal ? { signal } : {}).catch(() => {});
    }
  }
}
