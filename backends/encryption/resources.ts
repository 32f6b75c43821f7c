// Which transformer serves which stored key, from an EncryptionConfiguration: an exact
// `resource.group` first, then `*.group`, then `*.*`; a resource no rule names is stored as plain
// text (and a value someone encrypted earlier fails to read, as upstream's identity check does).
import { AesCbcTransformer, AesGcmTransformer } from "./aes.ts";
import { type EncryptionConfig, type ProviderConfig, parseGroupResource } from "./config.ts";
import { connectKmsV2 } from "./kmsv2.ts";
import { SecretboxTransformer } from "./secretbox.ts";
import {
  IdentityTransformer,
  type PrefixTransformer,
  PrefixTransformers,
  type TransformationRecorder,
  type Transformer,
} from "./transformer.ts";

export class ResourceTransformers {
  /** `group/resource` (group `*` and resource `*` as written) to the transformer list. */
  readonly #rules: ReadonlyMap<string, Transformer>;
  readonly #default: Transformer;
  readonly #byPrefix = new Map<string, Transformer | undefined>();
  readonly #closers: readonly (() => void)[];
  readonly hash: string;

  constructor(
    rules: ReadonlyMap<string, Transformer>,
    fallback: Transformer,
    hash: string,
    closers: readonly (() => void)[],
  ) {
    this.#rules = rules;
    this.#default = fallback;
    this.hash = hash;
    this.#closers = closers;
  }

  /**
   * The transformer of a storage key (`/<group>/<resource>/...`, core as `core`); undefined when
   * no rule names its resource.
   */
  forKey(key: string): Transformer | undefined {
    const second = key.indexOf("/", 1);
    const third = second < 0 ? -1 : key.indexOf("/", second + 1);
    if (third < 0) return undefined;
    const resourcePrefix = key.slice(0, third);
    if (this.#byPrefix.has(resourcePrefix)) return this.#byPrefix.get(resourcePrefix);
    const storedGroup = key.slice(1, second);
    const group = storedGroup === "core" ? "" : storedGroup;
    const resource = key.slice(second + 1, third);
    const found =
      this.#rules.get(`${group}/${resource}`) ?? this.#rules.get(`${group}/*`) ?? this.#rules.get("*/*");
    this.#byPrefix.set(resourcePrefix, found);
    return found;
  }

  /** For keys no rule names: plain text that refuses encrypted values. */
  get fallback(): Transformer {
    return this.#default;
  }

  close(): void {
    for (const c of this.#closers) c();
  }
}

export interface BuildOptions {
  readonly encryptedPrefix: string;
  readonly recorder: TransformationRecorder;
  /** The configuration file, for messages. */
  readonly path: string;
}

export async function buildTransformers(
  config: EncryptionConfig,
  options: BuildOptions,
): Promise<ResourceTransformers> {
  const { encryptedPrefix, recorder } = options;
  const lists = new Map<string, PrefixTransformer[]>();
  const closers: (() => void)[] = [];
  try {
    for (const [i, rule] of config.rules.entries()) {
      const providers: PrefixTransformer[] = [];
      for (const [j, provider] of rule.providers.entries()) {
        providers.push(
          await providerTransformer(provider, `resources[${i}].providers[${j}]`, options, closers),
        );
      }
      for (const resource of rule.resources) {
        const { group, resource: name } = parseGroupResource(resource);
        const key = `${group}/${name}`;
        lists.set(key, [...(lists.get(key) ?? []), ...providers]);
      }
    }
  } catch (err) {
    for (const c of closers) c();
    throw err;
  }
  const rules = new Map<string, Transformer>();
  for (const [key, list] of lists)
    rules.set(key, new PrefixTransformers("no matching prefix found", list, recorder));
  return new ResourceTransformers(rules, new IdentityTransformer(encryptedPrefix), config.hash, closers);
}

async function providerTransformer(
  provider: ProviderConfig,
  path: string,
  options: BuildOptions,
  closers: (() => void)[],
): Promise<PrefixTransformer> {
  const { encryptedPrefix, recorder } = options;
  switch (provider.type) {
    case "identity":
      return { prefix: Buffer.alloc(0), transformer: new IdentityTransformer(encryptedPrefix) };
    case "aesgcm":
    case "aescbc":
    case "secretbox": {
      const make = { aesgcm: AesGcmTransformer, aescbc: AesCbcTransformer, secretbox: SecretboxTransformer }[
        provider.type
      ];
      const keys = provider.keys.map((k) => ({
        prefix: Buffer.from(`${k.name}:`, "latin1"),
        transformer: new make(k.secret),
      }));
      return {
        prefix: Buffer.from(`${encryptedPrefix}${provider.type}:v1:`, "latin1"),
        transformer: new PrefixTransformers(
          provider.type === "secretbox"
            ? "no matching key was found for the provided Secretbox transformer"
            : "no matching key was found for the provided AES transformer",
          keys,
          recorder,
        ),
      };
    }
    case "kms": {
      const kms = await connectKmsV2(provider, `${options.path}: ${path}.kms`);
      closers.push(() => kms.close());
      return {
        prefix: Buffer.from(`${encryptedPrefix}kms:v2:${provider.name}:`, "latin1"),
        transformer: kms,
      };
    }
  }
}
