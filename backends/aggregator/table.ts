// Which group/versions other servers serve, from the APIService objects: the routing stage asks it
// for every request, discovery for the groups to list. Local APIServices (no service) are the
// gateway's own and route to its handlers.
import type { ApiServiceEntry } from "./apiservice.ts";

export class ApiServiceTable {
  readonly #byName = new Map<string, ApiServiceEntry>();
  readonly #remote = new Map<string, ApiServiceEntry>();
  #generation = 0;

  set(entry: ApiServiceEntry): void {
    this.delete(entry.name);
    this.#byName.set(entry.name, entry);
    if (entry.service) this.#remote.set(`${entry.group}/${entry.version}`, entry);
    this.#generation++;
  }

  delete(name: string): void {
    const old = this.#byName.get(name);
    if (!old) return;
    this.#byName.delete(name);
    const key = `${old.group}/${old.version}`;
    if (this.#remote.get(key) === old) this.#remote.delete(key);
    this.#generation++;
  }

  /** The remote APIService serving a group/version, if one does. */
  remote(group: string, version: string): ApiServiceEntry | undefined {
    return this.#remote.size === 0 ? undefined : this.#remote.get(`${group}/${version}`);
  }

  /** Every remote APIService. */
  remotes(): ApiServiceEntry[] {
    return [...this.#remote.values()];
  }

  /** Changes whenever an entry does (discovery rebuilds on it). */
  get generation(): number {
    return this.#generation;
  }
}
