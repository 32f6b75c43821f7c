// The issuer's signing keys (its JWKS), fetched when first needed and again when a token names
// a key we do not have: that is how a key rotation reaches us. Refetches are spaced out, so a
// stream of tokens with made-up key ids cannot make us hammer the issuer.
import { type CryptoKey, compactVerify, importJWK, type JWK } from "jose";
import type { JsonFetcher } from "./fetch-json.ts";

/** The signature was not checked: no key, or no usable key, for the token. */
export class KeyLookupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "KeyLookupError";
  }
}

export interface KeySetOptions {
  readonly fetcher: JsonFetcher;
  readonly jwksUri: string;
  /** Least time between two fetches caused by unknown key ids. */
  readonly minRefreshIntervalMs: number;
  /** Keys older than this are fetched again before use (a failed fetch keeps the old ones). */
  readonly maxAgeMs: number;
  readonly now: () => number;
}

interface Loaded {
  readonly keys: readonly JWK[];
  readonly fetchedAt: number;
  /** Imported keys by position in `keys` and algorithm. */
  readonly imported: Map<string, Promise<CryptoKey | undefined>>;
}

export class RemoteKeySet {
  readonly #options: KeySetOptions;
  #loaded: Loaded | undefined;
  #lastAttempt = Number.NEGATIVE_INFINITY;
  #inflight: Promise<void> | undefined;

  constructor(options: KeySetOptions) {
    this.#options = options;
  }

  /** Fetches the key set now, or joins a fetch under way. */
  refresh(): Promise<void> {
    if (!this.#inflight) {
      this.#lastAttempt = this.#options.now();
      this.#inflight = this.#fetch().finally(() => {
        this.#inflight = undefined;
      });
    }
    return this.#inflight;
  }

  async #fetch(): Promise<void> {
    const doc = await this.#options.fetcher.get(this.#options.jwksUri);
    const keys = doc.keys;
    if (!Array.isArray(keys)) throw new KeyLookupError(`${this.#options.jwksUri}: no "keys" array`);
    const usable = keys.filter(
      (k): k is JWK => typeof k === "object" && k !== null && !Array.isArray(k) && typeof k.kty === "string",
    );
    this.#loaded = { keys: usable, fetchedAt: this.#options.now(), imported: new Map() };
  }

  /**
   * Checks the token's signature with the issuer's keys and returns its payload. Throws
   * KeyLookupError (no key) or a jose error (bad signature, malformed token).
   */
  async verify(token: string, alg: string, kid: string | undefined): Promise<Uint8Array> {
    const now = this.#options.now();
    if (!this.#loaded) await this.refresh();
    else if (now - this.#loaded.fetchedAt > this.#options.maxAgeMs) {
      // Stale keys are refreshed; when the issuer cannot be reached the old ones still serve.
      await this.refresh().catch(() => undefined);
    }
    let candidates = this.#candidates(alg, kid);
    if (candidates.length === 0 && now - this.#lastAttempt >= this.#options.minRefreshIntervalMs) {
      await this.refresh();
      candidates = this.#candidates(alg, kid);
    }
    if (candidates.length === 0) {
      throw new KeyLookupError(
        kid === undefined
          ? `no key for algorithm ${alg}`
          : `no key with id ${JSON.stringify(kid)} for algorithm ${alg}`,
      );
    }
    let lastError: unknown;
    for (const key of candidates) {
      const imported = await key;
      if (!imported) continue;
      try {
        return (await compactVerify(token, imported, { algorithms: [alg] })).payload;
      } catch (err) {
        lastError = err;
      }
    }
    throw lastError ?? new KeyLookupError(`no usable key for algorithm ${alg}`);
  }

  /** Keys that may have signed a token with this header: by key id when it has one, else all. */
  #candidates(alg: string, kid: string | undefined): Promise<CryptoKey | undefined>[] {
    const loaded = this.#loaded;
    if (!loaded) return [];
    const out: Promise<CryptoKey | undefined>[] = [];
    loaded.keys.forEach((jwk, index) => {
      if (jwk.use !== undefined && jwk.use !== "sig") return;
      if (jwk.alg !== undefined && jwk.alg !== alg) return;
      if (kid !== undefined && jwk.kid !== kid) return;
      const cacheKey = `${index}:${alg}`;
      let imported = loaded.imported.get(cacheKey);
      if (!imported) {
        // A key that does not fit the algorithm (another key type or curve) is no candidate.
        imported = importJWK({ ...jwk, alg }, alg).then(
          (k) => (k instanceof Uint8Array || k.type !== "public" ? undefined : k),
          () => undefined,
        );
        loaded.imported.set(cacheKey, imported);
      }
      out.push(imported);
    });
    return out;
  }
}
