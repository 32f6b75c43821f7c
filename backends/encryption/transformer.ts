// Value transformers as upstream's storage layer composes them: each provider has a prefix; the
// first one of a list transforms what is written, every one whose prefix a stored value carries
// can read it back, and a value read by any but the first is stale (a rewrite re-encrypts it).
import { performance } from "node:perf_hooks";

export interface FromStorage {
  readonly data: Buffer;
  readonly stale: boolean;
}

export interface Transformer {
  /** `aad`: the storage key, bound into authenticated ciphers so a value cannot move keys. */
  fromStorage(data: Buffer, aad: Buffer): Promise<FromStorage>;
  toStorage(data: Buffer, aad: Buffer): Promise<Buffer>;
}

/** Where transformations are counted (apiserver_storage_transformation_*). */
export interface TransformationRecorder {
  record(type: "from_storage" | "to_storage", prefix: string, seconds: number, err: unknown): void;
}

export const noRecorder: TransformationRecorder = { record() {} };

export interface PrefixTransformer {
  readonly prefix: Buffer;
  readonly transformer: Transformer;
}

const errorMessage = (err: unknown) => (err instanceof Error ? err.message : String(err));

export class PrefixTransformers implements Transformer {
  readonly #list: readonly PrefixTransformer[];
  readonly #noMatch: string;
  readonly #recorder: TransformationRecorder;

  constructor(noMatch: string, list: readonly PrefixTransformer[], recorder: TransformationRecorder) {
    this.#noMatch = noMatch;
    this.#list = list;
    this.#recorder = recorder;
  }

  async fromStorage(data: Buffer, aad: Buffer): Promise<FromStorage> {
    const start = performance.now();
    const errors: unknown[] = [];
    for (const [i, { prefix, transformer }] of this.#list.entries()) {
      if (!data.subarray(0, prefix.length).equals(prefix)) continue;
      let result: FromStorage;
      try {
        result = await transformer.fromStorage(data.subarray(prefix.length), aad);
      } catch (err) {
        // An empty prefix matches everything; its refusal only means "not mine".
        if (prefix.length === 0) continue;
        this.#recorder.record("from_storage", prefix.toString("latin1"), seconds(start), err);
        errors.push(err);
        continue;
      }
      this.#recorder.record(
        "from_storage",
        prefix.length === 0 ? "identity" : prefix.toString("latin1"),
        seconds(start),
        undefined,
      );
      return { data: result.data, stale: result.stale || i !== 0 };
    }
    if (errors.length === 1) throw errors[0];
    if (errors.length > 1) throw new Error(`[${errors.map(errorMessage).join(", ")}]`);
    const err = new Error(this.#noMatch);
    this.#recorder.record("from_storage", "unknown", seconds(start), err);
    throw err;
  }

  async toStorage(data: Buffer, aad: Buffer): Promise<Buffer> {
    const start = performance.now();
    const first = this.#list[0];
    if (!first) throw new Error(this.#noMatch);
    let out: Buffer;
    try {
      out = await first.transformer.toStorage(data, aad);
    } catch (err) {
      this.#recorder.record("to_storage", first.prefix.toString("latin1"), seconds(start), err);
      throw err;
    }
    this.#recorder.record("to_storage", first.prefix.toString("latin1"), seconds(start), undefined);
    return first.prefix.length === 0 ? out : Buffer.concat([first.prefix, out]);
  }
}

/** Plain text; refuses a value that carries the encrypted prefix (its provider is gone). */
export class IdentityTransformer implements Transformer {
  readonly #encrypted: Buffer;

  constructor(encryptedPrefix: string) {
    this.#encrypted = Buffer.from(encryptedPrefix, "latin1");
  }

  async fromStorage(data: Buffer): Promise<FromStorage> {
    if (data.subarray(0, this.#encrypted.length).equals(this.#encrypted))
      throw new Error("identity transformer tried to read encrypted data");
    return { data, stale: false };
  }

  async toStorage(data: Buffer): Promise<Buffer> {
    return data;
  }
}

function seconds(start: number): number {
  return (performance.now() - start) / 1000;
}
