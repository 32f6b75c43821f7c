// The request pipeline as data: an ordered list of named stages. Later features insert their
// stage next to a named anchor (`insertAfter("authentication", impersonation)`) instead of
// rewriting the chain, the way fastify's lifecycle hooks compose.
import type { RequestContext } from "./context.ts";

export interface Stage {
  readonly name: string;
  /** Runs in order; throwing an ApiError ends the request with that Status. */
  run(ctx: RequestContext): void | Promise<void>;
}

export class Pipeline {
  #stages: Stage[];

  constructor(stages: readonly Stage[] = []) {
    this.#stages = [...stages];
    this.#checkUnique();
  }

  get names(): string[] {
    return this.#stages.map((s) => s.name);
  }

  #index(anchor: string): number {
    const i = this.#stages.findIndex((s) => s.name === anchor);
    if (i < 0) throw new Error(`no pipeline stage named "${anchor}"`);
    return i;
  }

  #checkUnique(): void {
    const names = this.names;
    const dup = names.find((n, i) => names.indexOf(n) !== i);
    if (dup) throw new Error(`pipeline stage "${dup}" appears twice`);
  }

  insertBefore(anchor: string, stage: Stage): this {
    this.#stages.splice(this.#index(anchor), 0, stage);
    this.#checkUnique();
    return this;
  }

  insertAfter(anchor: string, stage: Stage): this {
    this.#stages.splice(this.#index(anchor) + 1, 0, stage);
    this.#checkUnique();
    return this;
  }

  replace(name: string, stage: Stage): this {
    this.#stages[this.#index(name)] = stage;
    this.#checkUnique();
    return this;
  }

  async run(ctx: RequestContext): Promise<void> {
    for (const stage of this.#stages) {
      if (ctx.done) return;
      // A synchronous stage's next one runs at once: an await of nothing costs a microtask turn.
      const pending = stage.run(ctx);
      if (pending !== undefined) await pending;
    }
  }
}
