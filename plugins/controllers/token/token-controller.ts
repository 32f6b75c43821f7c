// The legacy token controller: fills Secrets of type `<domain>/service-account-token` that name
// an account (annotation `<domain>/service-account.name`) with a non-expiring token, the CA and
// the namespace, and records the account's uid; deletes such Secrets whose account is gone (or
// was recreated), deletes an account's token Secrets when the account is deleted, and drops a
// deleted Secret from its account's `secrets` list. Writes carry the resourceVersion they were
// computed from and are redone on a conflict.
import type { Naming } from "../../../backends/naming/index.ts";
import { legacyTokenClaims, type ServiceAccountTokenSigner } from "../../authentication/index.ts";
import { ApiError, type ControllerClient } from "../client.ts";
import { Informer, type InformerObject } from "../informer.ts";

export interface TokenControllerOptions {
  readonly naming: Naming;
  /** Signs the tokens (`--service-account-signing-key-file`). */
  readonly signer: ServiceAccountTokenSigner;
  /** The CA bundle that verifies the API server, stored as `ca.crt`; omitted when undefined. */
  readonly rootCaPem?: string;
}

const MAX_ATTEMPTS = 5;

interface Meta {
  name: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  deletionTimestamp?: string;
  annotations?: Record<string, string>;
}

function metaOf(object: InformerObject): Meta {
  return object.metadata as Meta;
}

function dataOf(object: InformerObject): Record<string, string> {
  const data = object.data;
  return typeof data === "object" && data !== null ? (data as Record<string, string>) : {};
}

function decoded(object: InformerObject, key: string): string {
  const value = dataOf(object)[key];
  return typeof value === "string" ? Buffer.from(value, "base64").toString("utf8") : "";
}

const enc = encodeURIComponent;

export class TokenController {
  readonly #client: ControllerClient;
  readonly #options: TokenControllerOptions;
  readonly #onError: (err: unknown, context: string) => void;
  readonly #secrets: Informer;
  readonly #accounts: Informer;
  readonly #tokenType: string;
  readonly #nameKey: string;
  readonly #uidKey: string;

  constructor(
    client: ControllerClient,
    options: TokenControllerOptions,
    onError: (err: unknown, context: string) => void,
  ) {
    this.#client = client;
    this.#options = options;
    this.#onError = onError;
    this.#tokenType = options.naming.label("service-account-token");
    this.#nameKey = options.naming.label("service-account.name");
    this.#uidKey = options.naming.label("service-account.uid");
    this.#secrets = new Informer(
      client,
      `/api/v1/secrets?fieldSelector=${enc(`type=${this.#tokenType}`)}`,
      {
        upsert: (secret) =>
          this.#guard(`token secret ${this.#key(secret)}`, () => this.reconcileSecret(secret)),
        deleted: (secret) =>
          this.#guard(`references to ${this.#key(secret)}`, () => this.#removeReference(secret)),
      },
      (err) => onError(err, "token secret informer"),
    );
    this.#accounts = new Informer(
      client,
      "/api/v1/serviceaccounts",
      {
        upsert: () => {},
        deleted: (account) =>
          this.#guard(`tokens of ${this.#key(account)}`, () => this.#deleteTokens(account)),
      },
      (err) => onError(err, "service account informer"),
    );
  }

  get synced(): boolean {
    return this.#secrets.synced && this.#accounts.synced;
  }

  async run(signal: AbortSignal): Promise<void> {
    await Promise.all([this.#secrets.run(signal), this.#accounts.run(signal)]);
  }

  /**
   * One pass over one token Secret as last seen (possibly stale): delete it when its account is
   * gone, else fill what it lacks.
   */
  async reconcileSecret(seen: InformerObject): Promise<void> {
    const meta = metaOf(seen);
    const namespace = meta.namespace ?? "";
    const accountName = meta.annotations?.[this.#nameKey] ?? "";
    if (!namespace || !accountName || meta.deletionTimestamp || seen.type !== this.#tokenType) return;
    const wantedUid = meta.annotations?.[this.#uidKey] ?? "";
    const reply = await this.#client.call(
      "GET",
      `/api/v1/namespaces/${enc(namespace)}/serviceaccounts/${enc(accountName)}`,
    );
    if (
      reply.status === 404 ||
      (reply.status === 200 && wantedUid && reply.body?.metadata?.uid !== wantedUid)
    ) {
      await this.#deleteSecret(namespace, meta.name, meta.uid);
      return;
    }
    if (reply.status !== 200) throw new ApiError(reply.status, `reading service account: ${reply.status}`);
    await this.#fill(seen, reply.body as InformerObject);
  }

  async #fill(seen: InformerObject, account: InformerObject): Promise<void> {
    const { naming, signer, rootCaPem } = this.#options;
    const accountMeta = metaOf(account);
    const accountUid = accountMeta.uid ?? "";
    let secret: InformerObject | undefined = seen;
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      if (!secret) {
        const fresh = await this.#client.call(
          "GET",
          `/api/v1/namespaces/${enc(metaOf(seen).namespace ?? "")}/secrets/${enc(metaOf(seen).name)}`,
        );
        if (fresh.status === 404) return;
        if (fresh.status !== 200) throw new ApiError(fresh.status, `reading secret: ${fresh.status}`);
        secret = fresh.body as InformerObject;
      }
      const meta = metaOf(secret);
      // The Secret was changed to name another account (or another type) meanwhile: its own pass.
      if (meta.annotations?.[this.#nameKey] !== accountMeta.name || secret.type !== this.#tokenType) return;
      if (meta.deletionTimestamp) return;
      const needsCa = rootCaPem !== undefined && decoded(secret, "ca.crt") !== rootCaPem;
      const needsNamespace = decoded(secret, "namespace") === "";
      const needsToken = decoded(secret, "token") === "";
      const needsUid = meta.annotations?.[this.#uidKey] !== accountUid;
      if (!needsCa && !needsNamespace && !needsToken && !needsUid) return;

      const data = { ...dataOf(secret) };
      if (needsCa) data["ca.crt"] = Buffer.from(rootCaPem as string).toString("base64");
      if (needsNamespace) data.namespace = Buffer.from(meta.namespace ?? "").toString("base64");
      if (needsToken) {
        const token = await signer.sign(
          legacyTokenClaims(
            naming,
            { namespace: meta.namespace ?? "", name: accountMeta.name, uid: accountUid },
            meta.name,
          ),
        );
        data.token = Buffer.from(token).toString("base64");
      }
      const updated = {
        ...secret,
        metadata: {
          ...meta,
          annotations: { ...meta.annotations, [this.#nameKey]: accountMeta.name, [this.#uidKey]: accountUid },
        },
        data,
      };
      const put = await this.#client.call(
        "PUT",
        `/api/v1/namespaces/${enc(meta.namespace ?? "")}/secrets/${enc(meta.name)}`,
        updated,
      );
      if (put.status === 200 || put.status === 201 || put.status === 404) return;
      if (put.status !== 409)
        throw new ApiError(put.status, `updating secret: ${put.status} ${put.body?.message}`);
      secret = undefined; // stale: read it again and redo the change
    }
    throw new Error(`gave up after ${MAX_ATTEMPTS} conflicting updates`);
  }

  async #deleteSecret(namespace: string, name: string, uid: string | undefined): Promise<void> {
    const reply = await this.#client.call(
      "DELETE",
      `/api/v1/namespaces/${enc(namespace)}/secrets/${enc(name)}`,
      { kind: "DeleteOptions", apiVersion: "v1", ...(uid ? { preconditions: { uid } } : {}) },
    );
    // 404: already gone; 409: a new Secret of that name, whose own pass decides.
    if (reply.status >= 300 && reply.status !== 404 && reply.status !== 409) {
      throw new ApiError(reply.status, `deleting secret: ${reply.status} ${reply.body?.message}`);
    }
  }

  async #deleteTokens(account: InformerObject): Promise<void> {
    const meta = metaOf(account);
    const namespace = meta.namespace ?? "";
    const list = await this.#client.must(
      "GET",
      `/api/v1/namespaces/${enc(namespace)}/secrets?fieldSelector=${enc(`type=${this.#tokenType}`)}`,
    );
    for (const secret of (list.body.items ?? []) as InformerObject[]) {
      const annotations = metaOf(secret).annotations ?? {};
      if (annotations[this.#nameKey] !== meta.name) continue;
      const uid = annotations[this.#uidKey];
      if (uid && meta.uid && uid !== meta.uid) continue;
      await this.#deleteSecret(namespace, metaOf(secret).name, metaOf(secret).uid);
    }
  }

  async #removeReference(secret: InformerObject): Promise<void> {
    const meta = metaOf(secret);
    const namespace = meta.namespace ?? "";
    const accountName = meta.annotations?.[this.#nameKey];
    if (!namespace || !accountName) return;
    const path = `/api/v1/namespaces/${enc(namespace)}/serviceaccounts/${enc(accountName)}`;
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const reply = await this.#client.call("GET", path);
      if (reply.status === 404) return;
      if (reply.status !== 200) throw new ApiError(reply.status, `reading service account: ${reply.status}`);
      const account = reply.body as InformerObject;
      const uid = meta.annotations?.[this.#uidKey];
      if (uid && metaOf(account).uid !== uid) return;
      const refs = Array.isArray(account.secrets) ? (account.secrets as { name?: string }[]) : [];
      const kept = refs.filter((r) => r?.name !== meta.name);
      if (kept.length === refs.length) return;
      const put = await this.#client.call("PUT", path, { ...account, secrets: kept });
      if (put.status === 200 || put.status === 404) return;
      if (put.status !== 409) throw new ApiError(put.status, `updating service account: ${put.status}`);
    }
    throw new Error(`gave up after ${MAX_ATTEMPTS} conflicting updates`);
  }

  #key(object: InformerObject): string {
    return `${object.metadata.namespace ?? ""}/${object.metadata.name}`;
  }

  async #guard(context: string, work: () => Promise<void>): Promise<void> {
    try {
      await work();
    } catch (err) {
      this.#onError(err, context);
    }
  }
}
