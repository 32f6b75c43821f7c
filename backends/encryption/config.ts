// `--encryption-provider-config`: an EncryptionConfiguration (apiserver.config.<domain>/v1) read,
// defaulted and validated as kube-apiserver 1.27 does, with its field paths and messages, so an
// operator's file moves over unchanged and a mistake stops the start naming file and field.
import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { load as loadYaml } from "js-yaml";
import { parseDuration } from "../../config/duration.ts";
import type { Naming } from "../naming/index.ts";

export interface EncryptionKey {
  readonly name: string;
  readonly secret: Buffer;
}

export type ProviderConfig =
  | { readonly type: "identity" }
  | { readonly type: "aesgcm" | "aescbc" | "secretbox"; readonly keys: readonly EncryptionKey[] }
  | {
      readonly type: "kms";
      readonly name: string;
      /** Path of the plugin's unix socket. */
      readonly socket: string;
      readonly timeoutMs: number;
    };

export interface ResourceRule {
  /** As written: `secrets`, `deployments.apps`, `*.apps`, `*.`, `*.*`. */
  readonly resources: readonly string[];
  readonly providers: readonly ProviderConfig[];
}

export interface EncryptionConfig {
  readonly rules: readonly ResourceRule[];
  /** sha256 of the file's bytes: a reload that finds the same hash changes nothing. */
  readonly hash: string;
}

export class EncryptionConfigError extends Error {
  override name = "EncryptionConfigError";
}

const AES_KEY_SIZES = [16, 24, 32];
const PROVIDER_FIELDS = ["aesgcm", "aescbc", "secretbox", "identity", "kms"] as const;
const DEFAULT_KMS_TIMEOUT_MS = 3000;

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** A Go field.Error's text: `path: Kind: "value": detail`. */
const invalid = (path: string, value: unknown, detail: string) =>
  `${path}: Invalid value: ${JSON.stringify(value)}: ${detail}`;
const required = (path: string, detail: string) => `${path}: Required value: ${detail}`;

/** Group and resource as upstream's ParseGroupResource splits them (at the first dot). */
export function parseGroupResource(text: string): { group: string; resource: string } {
  const dot = text.indexOf(".");
  return dot < 0
    ? { group: "", resource: text }
    : { group: text.slice(dot + 1), resource: text.slice(0, dot) };
}

/** Reads and validates the file; every problem found is in the thrown error's message. */
export async function loadEncryptionConfig(
  path: string,
  naming: Naming,
  options: { reload?: boolean } = {},
): Promise<EncryptionConfig> {
  let data: Buffer;
  try {
    data = await readFile(path);
  } catch (err) {
    throw new EncryptionConfigError(
      `error opening encryption provider configuration file "${path}": ${(err as Error).message}`,
    );
  }
  return parseEncryptionConfig(data, path, naming, options);
}

export function parseEncryptionConfig(
  data: Buffer,
  path: string,
  naming: Naming,
  options: { reload?: boolean } = {},
): EncryptionConfig {
  if (data.length === 0)
    throw new EncryptionConfigError(`encryption provider configuration file "${path}" is empty`);
  let doc: unknown;
  try {
    doc = loadYaml(data.toString("utf8"));
  } catch (err) {
    throw new EncryptionConfigError(
      `error decoding encryption provider configuration file "${path}": ${(err as Error).message}`,
    );
  }
  const apiVersion = `${naming.group("apiserver.config")}/v1`;
  if (!isObject(doc))
    throw new EncryptionConfigError(
      `error decoding encryption provider configuration file "${path}": expected an EncryptionConfiguration object`,
    );
  if (doc.kind !== "EncryptionConfiguration" || doc.apiVersion !== apiVersion)
    throw new EncryptionConfigError(
      `error decoding encryption provider configuration file "${path}": kind and apiVersion: expected EncryptionConfiguration ${apiVersion}, got ${JSON.stringify(doc.kind ?? "")} ${JSON.stringify(doc.apiVersion ?? "")}`,
    );
  const errors: string[] = [];
  const rules = validate(doc, naming, options.reload === true, errors);
  if (errors.length > 0)
    throw new EncryptionConfigError(
      `error while parsing encryption provider configuration file "${path}": ${errors.join("; ")}`,
    );
  return { rules, hash: createHash("sha256").update(data).digest("hex") };
}

function validate(
  doc: Record<string, unknown>,
  naming: Naming,
  reload: boolean,
  errors: string[],
): ResourceRule[] {
  const entries = doc.resources;
  if (!Array.isArray(entries) || entries.length === 0) {
    errors.push(required("resources", "at least one resources is required"));
    return [];
  }
  const kmsNames = new Set<string>();
  const rules: ResourceRule[] = [];
  for (const [i, entry] of entries.entries()) {
    const r = `resources[${i}].resources`;
    const p = `resources[${i}].providers`;
    const e = isObject(entry) ? entry : {};
    const resources = Array.isArray(e.resources) ? e.resources.map(String) : [];
    if (resources.length === 0) errors.push(required(r, `at least one ${r} is required`));
    errors.push(...resourceOverlap(resources, r), ...resourceNames(resources, r, naming));
    const providerList = Array.isArray(e.providers) ? e.providers : [];
    if (providerList.length === 0) errors.push(required(p, `at least one ${p} is required`));
    const providers: ProviderConfig[] = [];
    for (const [j, raw] of providerList.entries()) {
      const provider = parseProvider(raw, `${p}[${j}]`, kmsNames, reload, errors);
      if (provider) providers.push(provider);
    }
    rules.push({ resources, providers });
  }
  // A resource named after an earlier wildcard of its group (or `*.*`) could never be reached.
  const seen = new Set<string>();
  for (const rule of rules) {
    for (const resource of rule.resources) {
      const { group } = parseGroupResource(resource);
      for (const mask of [`*.${group}`, "*.*"]) {
        if (seen.has(mask)) errors.push(`resource "${resource}" is masked by earlier rule "${mask}"`);
      }
    }
    for (const resource of rule.resources) seen.add(resource);
  }
  return rules;
}

function resourceOverlap(resources: readonly string[], path: string): string[] {
  const parsed = resources.map(parseGroupResource);
  let duplicate = false;
  let overlap = false;
  for (const [i, a] of parsed.entries()) {
    for (const [j, b] of parsed.entries()) {
      if (i === j) continue;
      if (a.group === b.group && a.resource === b.resource) duplicate = true;
      else if (a.group === "*" && a.resource === "*") overlap = true;
      else if (a.group === b.group && (a.resource === "*" || b.resource === "*")) overlap = true;
    }
  }
  const out: string[] = [];
  if (duplicate) out.push(invalid(path, resources, "the same resource cannot be specified multiple times"));
  if (overlap)
    out.push(
      invalid(
        path,
        resources,
        "using overlapping resources such as 'secrets' and '*.' in the same resource list is not allowed as they will be masked",
      ),
    );
  return out;
}

function resourceNames(resources: readonly string[], path: string, naming: Naming): string[] {
  const out: string[] = [];
  const eventsGroup = naming.group("events");
  for (const [j, res] of resources.entries()) {
    const at = `${path}[${j}]`;
    const { group, resource } = parseGroupResource(res);
    if (res.toLowerCase() !== res)
      out.push(invalid(at, res, "resource name should not contain capital letters"));
    else if (res === "*")
      out.push(
        invalid(
          at,
          res,
          "use '*.' to encrypt all the resources from core API group or *.* to encrypt all resources",
        ),
      );
    else if (["apiserveripinfo", "serviceipallocations", "servicenodeportallocations"].includes(res))
      out.push(invalid(at, res, "resources which do not have REST API/s cannot be encrypted"));
    else if (group === eventsGroup)
      out.push(
        invalid(
          at,
          res,
          `'*.${eventsGroup}' objects are stored using the 'events' API group in etcd. Use 'events' instead in the config file`,
        ),
      );
    else if (group === "extensions")
      out.push(invalid(at, res, "'extensions' group has been removed and cannot be used for encryption"));
    else if (group === "*" && resource !== "*")
      out.push(invalid(at, res, "encrypting the same resource across groups is not supported"));
  }
  return out;
}

function parseProvider(
  raw: unknown,
  path: string,
  kmsNames: Set<string>,
  reload: boolean,
  errors: string[],
): ProviderConfig | undefined {
  const fields = isObject(raw) ? Object.keys(raw) : [];
  const known = fields.filter((f): f is (typeof PROVIDER_FIELDS)[number] =>
    (PROVIDER_FIELDS as readonly string[]).includes(f),
  );
  if (known.length === 0) {
    errors.push(
      invalid(
        path,
        fields.join(","),
        "provider does not contain any of the expected providers: KMS, AESGCM, AESCBC, Secretbox, Identity",
      ),
    );
    return undefined;
  }
  if (known.length > 1) {
    errors.push(
      invalid(
        path,
        known.join(","),
        "more than one provider specified in a single element, should split into different list elements",
      ),
    );
    return undefined;
  }
  const type = known[0] as (typeof PROVIDER_FIELDS)[number];
  const body = (raw as Record<string, unknown>)[type];
  const conf = isObject(body) ? body : {};
  switch (type) {
    case "identity":
      return { type };
    case "aesgcm":
    case "aescbc": {
      const keys = parseKeys(conf.keys, `${path}.${type}.keys`, AES_KEY_SIZES, errors);
      return keys ? { type, keys } : undefined;
    }
    case "secretbox": {
      const keys = parseKeys(conf.keys, `${path}.secretbox.keys`, [32], errors);
      return keys ? { type, keys } : undefined;
    }
    case "kms":
      return parseKms(conf, `${path}.kms`, kmsNames, reload, errors);
  }
}

function parseKeys(
  raw: unknown,
  path: string,
  sizes: readonly number[],
  errors: string[],
): EncryptionKey[] | undefined {
  if (!Array.isArray(raw) || raw.length === 0) {
    errors.push(required(path, "at least one keys is required"));
    return undefined;
  }
  const keys: EncryptionKey[] = [];
  let ok = true;
  for (const [i, k] of raw.entries()) {
    const at = `${path}[${i}]`;
    const key = isObject(k) ? k : {};
    const name = typeof key.name === "string" ? key.name : "";
    const secret = typeof key.secret === "string" ? key.secret : "";
    if (name === "") {
      errors.push(required(`${at}.name`, "name is a mandatory field for a key"));
      ok = false;
    }
    if (secret === "") {
      errors.push(required(`${at}.secret`, "secret is a mandatory field for a key"));
      ok = false;
      continue;
    }
    // Standard base64 only, as Go's StdEncoding: Node's decoder would skip bad characters.
    if (!/^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(secret)) {
      errors.push(invalid(`${at}.secret`, "REDACTED", "secrets must be base64 encoded"));
      ok = false;
      continue;
    }
    const bytes = Buffer.from(secret, "base64");
    if (!sizes.includes(bytes.length)) {
      errors.push(
        invalid(
          `${at}.secret`,
          "REDACTED",
          `secret is not of the expected length, got ${bytes.length}, expected one of [${sizes.join(" ")}]`,
        ),
      );
      ok = false;
      continue;
    }
    keys.push({ name, secret: bytes });
  }
  return ok ? keys : undefined;
}

function parseKms(
  conf: Record<string, unknown>,
  path: string,
  kmsNames: Set<string>,
  reload: boolean,
  errors: string[],
): ProviderConfig | undefined {
  const before = errors.length;
  const apiVersion = conf.apiVersion === undefined ? "v1" : String(conf.apiVersion);
  const name = typeof conf.name === "string" ? conf.name : "";
  if (name === "") errors.push(required(`${path}.name`, "name is a mandatory field for a provider"));
  if (apiVersion !== "v1" && name.includes(":"))
    errors.push(invalid(`${path}.name`, name, `invalid KMS provider name ${name}, must not contain ':'`));
  if ((reload || apiVersion !== "v1") && kmsNames.has(name))
    errors.push(invalid(`${path}.name`, name, `duplicate KMS provider name ${name}, names must be unique`));
  kmsNames.add(name);
  let timeoutMs = DEFAULT_KMS_TIMEOUT_MS;
  if (conf.timeout !== undefined) {
    try {
      timeoutMs = parseDuration(String(conf.timeout));
    } catch {
      timeoutMs = 0;
    }
    if (!(timeoutMs > 0))
      errors.push(invalid(`${path}.timeout`, conf.timeout, "timeout should be a positive value"));
  }
  const endpoint = typeof conf.endpoint === "string" ? conf.endpoint : "";
  let socket = "";
  if (endpoint === "")
    errors.push(invalid(`${path}.endpoint`, "", "endpoint is a mandatory field for a kms"));
  else {
    let url: URL | undefined;
    try {
      url = new URL(endpoint);
    } catch (err) {
      errors.push(
        invalid(
          `${path}.endpoint`,
          endpoint,
          `invalid endpoint for kms provider, error: ${(err as Error).message}`,
        ),
      );
    }
    if (url && url.protocol !== "unix:")
      errors.push(
        invalid(
          `${path}.endpoint`,
          endpoint,
          `unsupported scheme "${url.protocol.replace(/:$/, "")}" for KMS provider, only unix is supported`,
        ),
      );
    else if (url) socket = decodeURIComponent(url.pathname);
  }
  if (apiVersion !== "v1" && conf.cachesize !== undefined)
    errors.push(invalid(`${path}.cachesize`, conf.cachesize, "cachesize is not supported in v2"));
  if (apiVersion !== "v1" && apiVersion !== "v2")
    errors.push(
      invalid(
        `${path}.apiVersion`,
        apiVersion,
        "unsupported apiVersion apiVersion for KMS provider, only v1 and v2 are supported",
      ),
    );
  else if (apiVersion === "v1")
    errors.push(
      `${path}.apiVersion: Unsupported value: "v1": KMS v1 is deprecated and not available on this server; use apiVersion v2`,
    );
  if (errors.length > before) return undefined;
  return { type: "kms", name, socket, timeoutMs };
}
