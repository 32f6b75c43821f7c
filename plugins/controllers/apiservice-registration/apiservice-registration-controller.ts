// Keeps an APIService for every group version the gateway serves itself, as upstream's
// kube-apiserver does with its autoregister and crd-autoregister controllers: the built-in group
// versions (read from discovery once at start, as upstream reads its own paths once) kept
// `onstart`, the served versions of established custom resource definitions kept always, and
// the Available/Local condition on every local APIService, written through the status
// subresource. APIServices without the automanaged label are never changed, and remote ones'
// status is left to the availability controller.
import { setTimeout as delay } from "node:timers/promises";
import type { Naming } from "../../../backends/naming/index.ts";
import type { ControllerClient } from "../client.ts";
import { Informer, type InformerObject } from "../informer.ts";
import {
  automanagedLabel,
  builtinApiServices,
  crdApiServices,
  crdGroupVersions,
  decide,
  type GroupVersion,
  localStatusUpdate,
} from "./registration.ts";

type Json = Record<string, unknown>;

export interface ApiServiceRegistrationOptions {
  readonly naming: Naming;
  /**
   * The group versions the gateway serves itself, asked once at start. Default: discovery
   * (`/api` and `/apis`); custom resource group versions are told apart by their definitions.
   */
  readonly servedGroupVersions?: (client: ControllerClient) => Promise<GroupVersion[]>;
  /** Custom resource definitions are served (default); without them only built-ins are kept. */
  readonly customResources?: boolean;
}

/** The group versions discovery lists: `/api`'s versions of the core group and `/apis`'s groups. */
export async function discoveredGroupVersions(client: ControllerClient): Promise<GroupVersion[]> {
  const out: GroupVersion[] = [];
  const core = (await client.must("GET", "/api")).body;
  for (const version of Array.isArray(core?.versions) ? core.versions : []) {
    if (typeof version === "string") out.push({ group: "", version });
  }
  const apis = (await client.must("GET", "/apis")).body;
  for (const group of Array.isArray(apis?.groups) ? (apis.groups as Json[]) : []) {
    for (const v of Array.isArray(group.versions) ? (group.versions as Json[]) : []) {
      if (typeof group.name === "string" && typeof v.version === "string")
        out.push({ group: group.name, version: v.version });
    }
  }
  return out;
}

const RETRY_MS = 500;
const MAX_RETRY_MS = 30_000;

export class ApiServiceRegistrationController {
  readonly #client: ControllerClient;
  readonly #naming: Naming;
  readonly #label: string;
  readonly #path: string;
  readonly #served: (client: ControllerClient) => Promise<GroupVersion[]>;
  readonly #onError: (err: unknown, context: string) => void;
  readonly #apiServiceInformer: Informer;
  readonly #crdInformer: Informer | undefined;
  readonly #apiServices = new Map<string, Json>();
  readonly #crds = new Map<string, Json>();
  #builtin = new Map<string, Json>();
  #crdWanted = new Map<string, Json>();
  #presentAtStart = new Set<string>();
  /** Names synced without error in this run (upstream's "synced successfully"). */
  readonly #done = new Set<string>();
  readonly #failures = new Map<string, number>();
  readonly #queue = new Set<string>();
  #ready = false;
  #initialPass = false;
  #draining: Promise<void> | undefined;
  #signal: AbortSignal | undefined;

  constructor(
    client: ControllerClient,
    options: ApiServiceRegistrationOptions,
    onError: (err: unknown, context: string) => void,
  ) {
    this.#client = client;
    this.#naming = options.naming;
    this.#label = automanagedLabel(options.naming);
    this.#served = options.servedGroupVersions ?? discoveredGroupVersions;
    this.#onError = onError;
    this.#path = `/apis/${options.naming.group("apiregistration")}/v1/apiservices`;
    this.#apiServiceInformer = new Informer(
      client,
      this.#path,
      {
        upsert: (o) => this.#apiServiceChanged(o, false),
        deleted: (o) => this.#apiServiceChanged(o, true),
      },
      (err) => onError(err, "apiservice informer"),
    );
    this.#crdInformer =
      options.customResources === false
        ? undefined
        : new Informer(
            client,
            `/apis/${options.naming.group("apiextensions")}/v1/customresourcedefinitions`,
            {
              upsert: (o) => this.#crdChanged(o, false),
              deleted: (o) => this.#crdChanged(o, true),
            },
            (err) => onError(err, "customresourcedefinition informer"),
          );
  }

  /** True once every APIService wanted at start has been seen to once. */
  get synced(): boolean {
    return this.#initialPass;
  }

  async run(signal: AbortSignal): Promise<void> {
    this.#signal = signal;
    const informers = Promise.all([this.#apiServiceInformer.run(signal), this.#crdInformer?.run(signal)]);
    // Decide on whole sets only: a partial list of definitions would delete their APIServices.
    while (!(this.#apiServiceInformer.synced && (this.#crdInformer?.synced ?? true)) && !signal.aborted) {
      await delay(20, undefined, { signal }).catch(() => {});
    }
    const served = await this.#servedGroupVersions(signal);
    if (served) {
      const custom = new Set(this.#crdWanted.keys());
      this.#builtin = builtinApiServices(
        this.#naming,
        served.filter((gv) => !custom.has(`${gv.version}.${gv.group}`)),
      );
      this.#presentAtStart = new Set(this.#apiServices.keys());
      this.#ready = true;
      for (const name of [...this.#builtin.keys(), ...this.#crdWanted.keys(), ...this.#apiServices.keys()]) {
        this.#queue.add(name);
      }
      this.#kick();
      await this.#draining;
      this.#initialPass = true;
    }
    await informers;
    await this.#draining;
  }

  /** Discovery, asked until it answers (or the controller stops). */
  async #servedGroupVersions(signal: AbortSignal): Promise<GroupVersion[] | undefined> {
    for (let attempt = 0; !signal.aborted; attempt++) {
      try {
        return await this.#served(this.#client);
      } catch (err) {
        this.#onError(err, "reading the served group versions");
        await delay(Math.min(RETRY_MS * 2 ** attempt, MAX_RETRY_MS), undefined, { signal }).catch(() => {});
      }
    }
    return undefined;
  }

  #apiServiceChanged(object: InformerObject, deleted: boolean): void {
    const name = object.metadata.name;
    if (deleted) this.#apiServices.delete(name);
    else this.#apiServices.set(name, object);
    this.#enqueue(name);
  }

  #crdChanged(object: InformerObject, deleted: boolean): void {
    if (deleted) this.#crds.delete(object.metadata.name);
    else this.#crds.set(object.metadata.name, object);
    const before = this.#crdWanted;
    this.#crdWanted = crdApiServices(this.#naming, crdGroupVersions(this.#crds.values()));
    for (const name of new Set([...before.keys(), ...this.#crdWanted.keys()])) {
      if (before.has(name) !== this.#crdWanted.has(name)) this.#enqueue(name);
    }
  }

  #enqueue(name: string): void {
    this.#queue.add(name);
    this.#kick();
  }

  /** Works the queue unless a pass runs; names queued as a pass ends start the next. */
  #kick(): void {
    if (!this.#ready || this.#draining || this.#signal?.aborted) return;
    this.#draining = this.#drain().finally(() => {
      this.#draining = undefined;
      if (this.#queue.size > 0) this.#kick();
    });
  }

  async #drain(): Promise<void> {
    while (this.#queue.size > 0 && !this.#signal?.aborted) {
      const name = this.#queue.values().next().value;
      if (name === undefined) return;
      this.#queue.delete(name);
      try {
        await this.#sync(name);
        this.#failures.delete(name);
      } catch (err) {
        const n = (this.#failures.get(name) ?? 0) + 1;
        this.#failures.set(name, n);
        this.#onError(err, `apiservice ${name} (attempt ${n})`);
        void delay(Math.min(RETRY_MS * 2 ** (n - 1), MAX_RETRY_MS), undefined, { signal: this.#signal }).then(
          () => this.#enqueue(name),
          () => {},
        );
      }
    }
  }

  async #sync(name: string): Promise<void> {
    const current = this.#apiServices.get(name);
    const action = decide({
      desired: this.#builtin.get(name) ?? this.#crdWanted.get(name),
      current,
      presentAtStart: this.#presentAtStart.has(name),
      syncedBefore: this.#done.has(name),
      label: this.#label,
    });
    const path = `${this.#path}/${encodeURIComponent(name)}`;
    // NotFound, AlreadyExists and Conflict mean it changed meanwhile: its informer event brings
    // the name back.
    const expect = async (reply: Promise<{ status: number; body: Json }>, what: string) => {
      const { status, body } = await reply;
      if (status < 300 || status === 404 || status === 409) return status < 300;
      throw new Error(`${what} apiservice ${name}: ${status} ${String(body?.message ?? "")}`);
    };
    switch (action.kind) {
      case "create":
        await expect(this.#client.call("POST", this.#path, action.object), "creating");
        break;
      case "update":
        await expect(this.#client.call("PUT", path, action.object), "updating");
        break;
      case "delete":
        await expect(
          this.#client.call("DELETE", path, {
            kind: "DeleteOptions",
            apiVersion: "v1",
            preconditions: { uid: action.uid },
          }),
          "deleting",
        );
        break;
      case "none": {
        const status = current && localStatusUpdate(current);
        if (status)
          await expect(this.#client.call("PUT", `${path}/status`, status), "updating the status of");
      }
    }
    this.#done.add(name);
  }
}
