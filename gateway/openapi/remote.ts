// Extension servers' OpenAPI, fetched and kept for the gateway's own documents: for each remote
// APIService, its server's `/openapi/v2` (reduced to the APIService's group version, merged into
// `/openapi/v2`) and its `/openapi/v3` document of that group version (listed in `/openapi/v3` and
// served from here), read over the proxy under the aggregator's identity. As upstream's
// aggregator does, an APIService's specs are fetched when it appears or changes and again every
// minute; an extension that fails (unreachable, hanging, garbage, too large) keeps its last good
// specs and is tried again after a delay that doubles up to an hour. Each APIService is fetched on
// its own, so a hanging extension delays no other.
import { createHash } from "node:crypto";
import type {
  ApiServiceEntry,
  ApiServiceTable,
  ProxiedUser,
  RemoteBackend,
} from "../../backends/aggregator/index.ts";
import { byPriority, readV2Spec, type SpecParts } from "./merge.ts";
import { groupVersionPath } from "./names.ts";

/** How often a good spec is fetched again, and the first delay after a failure (upstream's). */
const REFRESH_MS = 60_000;
/** The longest delay between tries of a failing extension (upstream's). */
const MAX_RETRY_MS = 3_600_000;
/** How long one download may take (upstream's spec download timeout). */
const DOWNLOAD_TIMEOUT_MS = 60_000;
/** The most read of one answer (as the availability probe). */
const MAX_SPEC_BYTES = 16 * 1024 * 1024;

/** What the gateway's documents take from the extensions. */
export interface RemoteSpecs {
  /** Changes whenever anything below does. */
  readonly generation: number;
  /** Each extension's part of `/openapi/v2`, in merge order. */
  readonly v2: readonly SpecParts[];
  /** The extensions' v3 documents by group-version path (`apis/<group>/<version>`). */
  readonly v3: ReadonlyMap<string, Buffer>;
}

export interface RemoteOpenApiOptions {
  readonly table: ApiServiceTable;
  readonly backend: RemoteBackend;
  /** Who the downloads are made as. */
  readonly user: ProxiedUser;
  readonly onError: (err: unknown, context: string) => void;
}

interface Slot {
  entry: ApiServiceEntry;
  /** The entry as JSON: a changed APIService is fetched again at once. */
  key: string;
  v2?: SpecParts;
  /** Digest of the v2 answer `v2` was read from: an unchanged answer is not read again. */
  v2Digest?: string;
  v3?: { readonly url: string; readonly body: Buffer };
  busy: boolean;
  /** When to fetch next (epoch ms). */
  due: number;
  failures: number;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * The `serverRelativeURL` an extension's `/openapi/v3` index gives a group version; undefined when
 * it lists none. Throws when the index is not one.
 */
export function readV3Index(body: string, gvPath: string): string | undefined {
  const index = JSON.parse(body) as unknown;
  if (!isObject(index) || !isObject(index.paths)) throw new Error("the OpenAPI v3 index has no paths");
  const entry = index.paths[gvPath];
  if (entry === undefined) return undefined;
  const url = isObject(entry) ? entry.serverRelativeURL : undefined;
  if (typeof url !== "string" || !url.startsWith("/"))
    throw new Error(`the OpenAPI v3 index gives ${gvPath} no server-relative URL`);
  return url;
}

/** An extension's v3 document, checked to be one. Throws when it is not. */
export function readV3Document(body: string): Buffer {
  const doc = JSON.parse(body) as unknown;
  if (!isObject(doc) || typeof doc.openapi !== "string" || !isObject(doc.paths))
    throw new Error("the OpenAPI v3 document is not an OpenAPI object");
  return Buffer.from(body);
}

/** The body of a 200 answer; throws for any other status. */
function ok(answer: { url: string; status: number; body: string }): string {
  if (answer.status !== 200) throw new Error(`${answer.url}: status ${answer.status}`);
  return answer.body;
}

export class RemoteOpenApi {
  readonly #o: RemoteOpenApiOptions;
  readonly #slots = new Map<string, Slot>();
  #generation = 0;
  #specs: RemoteSpecs | undefined;
  #wake: (() => void) | undefined;
  #pending = false;
  synced = false;

  constructor(options: RemoteOpenApiOptions) {
    this.#o = options;
  }

  /** Looks at the APIServices again soon (one changed). */
  recheck(): void {
    this.#pending = true;
    this.#wake?.();
  }

  /** The specs as last fetched. */
  specs(): RemoteSpecs {
    if (this.#specs?.generation === this.#generation) return this.#specs;
    const slots = byPriority([...this.#slots.values()]);
    const v3 = new Map<string, Buffer>();
    for (const slot of slots) {
      const gvPath = groupVersionPath(slot.entry.group, slot.entry.version);
      if (slot.v3 && !v3.has(gvPath)) v3.set(gvPath, slot.v3.body);
    }
    this.#specs = {
      generation: this.#generation,
      v2: slots.flatMap((slot) => (slot.v2 ? [slot.v2] : [])),
      v3,
    };
    return this.#specs;
  }

  async run(signal: AbortSignal): Promise<void> {
    signal.addEventListener("abort", () => this.#wake?.(), { once: true });
    while (!signal.aborted) {
      this.#pending = false;
      this.#sync();
      const now = Date.now();
      let next = Number.POSITIVE_INFINITY;
      for (const slot of this.#slots.values()) {
        if (slot.busy) continue;
        if (slot.due <= now) void this.#fetch(slot, signal);
        else next = Math.min(next, slot.due);
      }
      this.synced = true;
      if (this.#pending) continue;
      await new Promise<void>((resolve) => {
        const timer = Number.isFinite(next) ? setTimeout(resolve, next - now) : undefined;
        this.#wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.#wake = undefined;
    }
  }

  /** Slots for the table's remote APIServices: new and changed ones due now, gone ones dropped. */
  #sync(): void {
    const remotes = new Map(this.#o.table.remotes().map((e) => [e.name, e]));
    for (const name of [...this.#slots.keys()]) {
      if (remotes.has(name)) continue;
      this.#slots.delete(name);
      this.#generation++;
    }
    for (const entry of remotes.values()) {
      const key = JSON.stringify(entry);
      const slot = this.#slots.get(entry.name);
      if (slot?.key === key) continue;
      if (slot) {
        // The old specs stay until the new ones arrive; a changed group version has none of them.
        const moved = slot.entry.group !== entry.group || slot.entry.version !== entry.version;
        Object.assign(slot, { entry, key, due: 0, failures: 0 });
        if (moved) {
          slot.v2 = undefined;
          slot.v2Digest = undefined;
          slot.v3 = undefined;
        }
      } else {
        this.#slots.set(entry.name, { entry, key, busy: false, due: 0, failures: 0 });
      }
      this.#generation++;
    }
  }

  async #fetch(slot: Slot, signal: AbortSignal): Promise<void> {
    slot.busy = true;
    const { entry } = slot;
    const failures: string[] = [];
    try {
      await this.#fetchV2(slot, signal);
    } catch (err) {
      failures.push(`OpenAPI v2: ${(err as Error).message}`);
    }
    try {
      await this.#fetchV3(slot, signal);
    } catch (err) {
      failures.push(`OpenAPI v3: ${(err as Error).message}`);
    }
    slot.busy = false;
    if (signal.aborted) return;
    if (this.#current(slot, entry)) {
      slot.failures = failures.length > 0 ? slot.failures + 1 : 0;
      const delay =
        failures.length > 0 ? Math.min(REFRESH_MS * 2 ** (slot.failures - 1), MAX_RETRY_MS) : REFRESH_MS;
      slot.due = Date.now() + delay;
    }
    if (failures.length > 0)
      this.#o.onError(
        new Error(failures.join("; ")),
        `OpenAPI of APIService ${entry.name} (last good spec kept)`,
      );
    this.recheck();
  }

  /** A GET of a path from the slot's extension. */
  #get(
    slot: Slot,
    path: string,
    signal: AbortSignal,
  ): Promise<{ url: string; status: number; body: string }> {
    return this.#o.backend.get(slot.entry, path, this.#o.user, DOWNLOAD_TIMEOUT_MS, MAX_SPEC_BYTES, signal);
  }

  /** Whether the slot still stands for the APIService it was fetched for. */
  #current(slot: Slot, entry: ApiServiceEntry): boolean {
    return this.#slots.get(entry.name) === slot && slot.entry === entry;
  }

  async #fetchV2(slot: Slot, signal: AbortSignal): Promise<void> {
    const { entry } = slot;
    const body = ok(await this.#get(slot, "/openapi/v2", signal));
    const digest = createHash("sha256").update(body).digest("base64");
    if (digest === slot.v2Digest) return;
    const spec = readV2Spec(body, entry.group, entry.version);
    if (!this.#current(slot, entry)) return;
    slot.v2 = spec;
    slot.v2Digest = digest;
    this.#generation++;
  }

  async #fetchV3(slot: Slot, signal: AbortSignal): Promise<void> {
    const { entry } = slot;
    const gvPath = groupVersionPath(entry.group, entry.version);
    const index = await this.#get(slot, "/openapi/v3", signal);
    const url = index.status === 404 ? undefined : readV3Index(ok(index), gvPath);
    if (url === undefined) {
      // The extension serves no v3 documents (upstream would convert its v2 spec), or none of
      // this group version.
      if (slot.v3 && this.#current(slot, entry)) {
        slot.v3 = undefined;
        this.#generation++;
      }
      return;
    }
    // The index's URL carries the document's hash: the same URL is the same document.
    if (slot.v3?.url === url) return;
    const body = readV3Document(ok(await this.#get(slot, url, signal)));
    if (!this.#current(slot, entry)) return;
    slot.v3 = { url, body };
    this.#generation++;
  }
}
