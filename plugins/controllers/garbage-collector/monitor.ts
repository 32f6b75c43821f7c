// List-then-watch of one resource for the collector's graph. Unlike the shared Informer it keeps
// no copy of the objects (the graph holds what matters), lists in pages, and says whether it is
// in step with the server: after a lost watch it is not, until a new list has been applied.
import { setTimeout as delay } from "node:timers/promises";
import type { ControllerClient } from "../client.ts";
import type { ResourceInfo } from "./graph.ts";

export type WatchedObject = Record<string, unknown> & {
  metadata?: { uid?: string; name?: string; namespace?: string; resourceVersion?: string };
};

export interface MonitorSink {
  /** An object exists in this state; `generation` is the list that saw it (0 for a watch event). */
  observe(resource: ResourceInfo, object: WatchedObject, generation: number): void;
  observeDeleted(resource: ResourceInfo, object: WatchedObject): void;
  /** A list has been applied: objects of the resource it did not contain are gone. */
  listed(resource: ResourceInfo, generation: number): void;
  /** The monitor is in step with the server again, or no longer. */
  syncChanged(): void;
  syncFailed(resource: ResourceInfo, err: unknown): void;
}

const PAGE = 500;
const RETRY_MS = 1_000;
let generations = 0;

export class Monitor {
  readonly resource: ResourceInfo;
  readonly #client: ControllerClient;
  readonly #sink: MonitorSink;
  readonly #stop = new AbortController();
  #synced = false;
  #done: Promise<void> | undefined;

  constructor(client: ControllerClient, resource: ResourceInfo, sink: MonitorSink) {
    this.#client = client;
    this.resource = resource;
    this.#sink = sink;
  }

  get synced(): boolean {
    return this.#synced;
  }

  start(parent: AbortSignal): void {
    const signal = AbortSignal.any([parent, this.#stop.signal]);
    this.#done = this.#run(signal);
  }

  async stop(): Promise<void> {
    this.#stop.abort();
    await this.#done;
  }

  #setSynced(synced: boolean): void {
    if (this.#synced === synced) return;
    this.#synced = synced;
    this.#sink.syncChanged();
  }

  #collection(): string {
    return `${this.resource.base}/${this.resource.resource}`;
  }

  async #list(): Promise<string> {
    const generation = ++generations;
    let token = "";
    let revision = "";
    do {
      const query = `?limit=${PAGE}${token ? `&continue=${encodeURIComponent(token)}` : ""}`;
      const page = await this.#client.must("GET", `${this.#collection()}${query}`);
      const meta = (page.body.metadata ?? {}) as { continue?: string; resourceVersion?: string };
      if (revision === "") revision = String(meta.resourceVersion ?? "");
      for (const item of (page.body.items ?? []) as WatchedObject[])
        this.#sink.observe(this.resource, item, generation);
      token = meta.continue ?? "";
    } while (token !== "");
    this.#sink.listed(this.resource, generation);
    return revision;
  }

  async #run(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      try {
        this.#setSynced(false);
        let revision = await this.#list();
        this.#setSynced(true);
        // Follow from the list; after a quiet disconnect resume from the last event seen.
        for (;;) {
          let expired = false;
          const path = `${this.#collection()}?watch=1&resourceVersion=${revision}&allowWatchBookmarks=true`;
          for await (const event of this.#client.watch(path, signal)) {
            if (event.type === "ERROR") {
              expired = true;
              break;
            }
            const object = event.object as WatchedObject;
            revision = object.metadata?.resourceVersion ?? revision;
            if (event.type === "DELETED") this.#sink.observeDeleted(this.resource, object);
            else if (event.type !== "BOOKMARK") this.#sink.observe(this.resource, object, 0);
          }
          if (expired || signal.aborted) break;
        }
      } catch (err) {
        if (signal.aborted) break;
        this.#setSynced(false);
        this.#sink.syncFailed(this.resource, err);
        await delay(RETRY_MS, undefined, { signal }).catch(() => {});
      }
    }
    this.#setSynced(false);
  }
}
