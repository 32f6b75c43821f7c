// List-then-watch of one collection, kept going across disconnects and 410s, calling back for
// every object that appears or changes (and once per object after each re-list).
import { setTimeout as delay } from "node:timers/promises";
import type { ControllerClient } from "./client.ts";

export type InformerObject = Record<string, unknown> & {
  metadata: { name: string; namespace?: string; resourceVersion?: string };
};

export interface InformerHandlers {
  /** An object exists in this state (added, changed, or seen again after a re-list). */
  upsert(object: InformerObject): void | Promise<void>;
  deleted?(object: InformerObject): void | Promise<void>;
}

function keyOf(object: InformerObject): string {
  return `${object.metadata.namespace ?? ""}/${object.metadata.name}`;
}

export class Informer {
  readonly #client: ControllerClient;
  readonly #path: string;
  readonly #handlers: InformerHandlers;
  readonly #onError: (err: unknown) => void;
  #synced = false;
  /** What the handlers were last told exists, by namespace/name. */
  readonly #known = new Map<string, InformerObject>();

  constructor(
    client: ControllerClient,
    collectionPath: string,
    handlers: InformerHandlers,
    onError: (err: unknown) => void,
  ) {
    this.#client = client;
    this.#path = collectionPath;
    this.#handlers = handlers;
    this.#onError = onError;
  }

  /** True once the first list has been handed to the handlers. */
  get synced(): boolean {
    return this.#synced;
  }

  async run(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      try {
        const list = await this.#client.must("GET", this.#path);
        const listed = new Map<string, InformerObject>();
        for (const item of list.body.items as InformerObject[]) listed.set(keyOf(item), item);
        // Objects deleted while no watch was open show up only as missing from the new list.
        for (const [key, object] of this.#known) {
          if (!listed.has(key)) {
            this.#known.delete(key);
            await this.#handlers.deleted?.(object);
          }
        }
        for (const item of listed.values()) {
          this.#known.set(keyOf(item), item);
          await this.#handlers.upsert(item);
        }
        this.#synced = true;
        let rv = String(list.body.metadata.resourceVersion);
        const sep = this.#path.includes("?") ? "&" : "?";
        // Follow from the list's revision; resume from the last event after a quiet disconnect.
        for (;;) {
          let expired = false;
          for await (const event of this.#client.watch(
            `${this.#path}${sep}watch=1&resourceVersion=${rv}&allowWatchBookmarks=true`,
            signal,
          )) {
            const object = event.object as InformerObject;
            if (event.type === "ERROR") {
              expired = true;
              break;
            }
            rv = object.metadata?.resourceVersion ?? rv;
            if (event.type === "DELETED") {
              this.#known.delete(keyOf(object));
              await this.#handlers.deleted?.(object);
            } else if (event.type !== "BOOKMARK") {
              this.#known.set(keyOf(object), object);
              await this.#handlers.upsert(object);
            }
          }
          if (expired || signal.aborted) break;
        }
      } catch (err) {
        if (signal.aborted) return;
        this.#onError(err);
        await delay(1000, undefined, { signal }).catch(() => {});
      }
    }
  }
}
