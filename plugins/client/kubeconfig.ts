// Reading client-config ("kubeconfig") files as kubectl does: clusters, users and contexts by
// name, a current context, credentials inline (`-data`, base64) or in files that resolve against
// the kubeconfig's own directory. Every malformed input is an Error naming the file and field.
import { readFileSync } from "node:fs";
import { dirname, isAbsolute, resolve } from "node:path";
import { load as loadYaml } from "js-yaml";

/** The server side of a context: where to connect and how to trust it. */
export interface ClusterConfig {
  readonly server: string;
  /** PEM bundle trusted for the server's certificate; absent: the system roots. */
  readonly caPem?: string;
  readonly insecureSkipTlsVerify: boolean;
  /** Name checked against the server certificate instead of the URL host. */
  readonly tlsServerName?: string;
  /** The cluster's `extensions` by name (credential plugins read theirs from here). */
  readonly extensions: Readonly<Record<string, unknown>>;
}

/** A credential plugin as configured in `user.exec` (validated further by exec.ts). */
export interface ExecConfig {
  /** Absolute when the configured command had a directory part; otherwise looked up in PATH. */
  readonly command: string;
  readonly args: readonly string[];
  readonly env: readonly { readonly name: string; readonly value: string }[];
  readonly apiVersion: string;
  readonly installHint?: string;
  readonly provideClusterInfo: boolean;
  readonly interactiveMode?: string;
}

/** The caller side of a context. Empty: anonymous. */
export interface UserConfig {
  readonly clientCertPem?: string;
  readonly clientKeyPem?: string;
  readonly token?: string;
  /** Re-read from time to time, so a rotated token is picked up. */
  readonly tokenFile?: string;
  readonly username?: string;
  readonly password?: string;
  readonly exec?: ExecConfig;
}

export interface ClientConfig {
  readonly contextName?: string;
  readonly namespace?: string;
  readonly cluster: ClusterConfig;
  readonly user: UserConfig;
  /** The user entry's name (for messages). */
  readonly userName?: string;
}

/** A parsed kubeconfig file: every entry resolved, none chosen yet. */
export interface KubeconfigFile {
  readonly path: string;
  readonly currentContext?: string;
  readonly clusters: ReadonlyMap<string, ClusterConfig>;
  readonly users: ReadonlyMap<string, UserConfig>;
  readonly contexts: ReadonlyMap<string, { cluster: string; user: string; namespace?: string }>;
}

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

class Reader {
  readonly #path: string;
  readonly #dir: string;
  constructor(path: string) {
    this.#path = path;
    this.#dir = dirname(resolve(path));
  }

  fail(message: string): never {
    throw new Error(`kubeconfig ${this.#path}: ${message}`);
  }

  string(obj: Json, field: string, where: string): string | undefined {
    const value = obj[field];
    if (value === undefined || value === null || value === "") return undefined;
    if (typeof value !== "string") this.fail(`${where}: "${field}" must be a string`);
    return value;
  }

  bool(obj: Json, field: string, where: string): boolean {
    const value = obj[field];
    if (value === undefined || value === null) return false;
    if (typeof value !== "boolean") this.fail(`${where}: "${field}" must be true or false`);
    return value;
  }

  stringList(obj: Json, field: string, where: string): string[] {
    const value = obj[field];
    if (value === undefined || value === null) return [];
    if (!Array.isArray(value) || value.some((v) => typeof v !== "string"))
      this.fail(`${where}: "${field}" must be a list of strings`);
    return value as string[];
  }

  path(p: string): string {
    return isAbsolute(p) ? p : resolve(this.#dir, p);
  }

  /** PEM from `<field>-data` (base64) or the file named by `<field>`; both set is an error. */
  pem(obj: Json, field: string, where: string): string | undefined {
    const file = this.string(obj, field, where);
    const data = this.string(obj, `${field}-data`, where);
    if (file && data) this.fail(`${where}: both "${field}" and "${field}-data" are set; use one`);
    if (data !== undefined) {
      const compact = data.replace(/\s+/g, "");
      if (!/^[A-Za-z0-9+/]*={0,2}$/.test(compact) || compact.length % 4 !== 0)
        this.fail(`${where}: "${field}-data" is not valid base64`);
      return Buffer.from(compact, "base64").toString("utf8");
    }
    if (file !== undefined) {
      try {
        return readFileSync(this.path(file), "utf8");
      } catch (err) {
        this.fail(`${where}: cannot read "${field}" ${file}: ${(err as NodeJS.ErrnoException).code ?? err}`);
      }
    }
    return undefined;
  }

  /** Entries of a named list (`clusters`, `users`, `contexts`): [{name, <key>: {...}}]. */
  named(doc: Json, list: string, key: string): [string, Json][] {
    const value = doc[list];
    if (value === undefined || value === null) return [];
    if (!Array.isArray(value)) this.fail(`"${list}" must be a list`);
    const seen = new Set<string>();
    return value.map((entry, i) => {
      if (!isObject(entry)) this.fail(`${list}[${i}] must be an object`);
      const name = entry.name;
      if (typeof name !== "string" || name === "") this.fail(`${list}[${i}] has no name`);
      if (seen.has(name)) this.fail(`${list}: "${name}" appears twice`);
      seen.add(name);
      const body = entry[key] ?? {};
      if (!isObject(body)) this.fail(`${list} "${name}": "${key}" must be an object`);
      return [name, body];
    });
  }

  cluster(name: string, c: Json): ClusterConfig {
    const where = `cluster "${name}"`;
    const server = this.string(c, "server", where);
    if (server === undefined) this.fail(`${where} has no server`);
    let url: URL;
    try {
      url = new URL(server);
    } catch {
      this.fail(`${where}: server ${JSON.stringify(server)} is not a URL`);
    }
    if (url.protocol !== "https:" && url.protocol !== "http:")
      this.fail(`${where}: server must be an http or https URL`);
    const caPem = this.pem(c, "certificate-authority", where);
    const insecureSkipTlsVerify = this.bool(c, "insecure-skip-tls-verify", where);
    if (insecureSkipTlsVerify && caPem !== undefined)
      this.fail(`${where}: a certificate authority together with insecure-skip-tls-verify is not allowed`);
    const tlsServerName = this.string(c, "tls-server-name", where);
    const extensions: Record<string, unknown> = {};
    for (const [extName, ext] of this.named(c, "extensions", "extension")) extensions[extName] = ext;
    return {
      server,
      ...(caPem !== undefined ? { caPem } : {}),
      insecureSkipTlsVerify,
      ...(tlsServerName !== undefined ? { tlsServerName } : {}),
      extensions,
    };
  }

  exec(e: unknown, where: string): ExecConfig {
    if (!isObject(e)) this.fail(`${where}: "exec" must be an object`);
    const command = this.string(e, "command", `${where} exec`);
    if (command === undefined) this.fail(`${where}: exec has no command`);
    const apiVersion = this.string(e, "apiVersion", `${where} exec`);
    if (apiVersion === undefined) this.fail(`${where}: exec has no apiVersion`);
    const rawEnv = e.env ?? [];
    if (!Array.isArray(rawEnv)) this.fail(`${where}: exec env must be a list of {name, value}`);
    const env = rawEnv.map((item, i) => {
      if (!isObject(item) || typeof item.name !== "string" || item.name === "")
        this.fail(`${where}: exec env[${i}] has no name`);
      const value = item.value ?? "";
      if (typeof value !== "string") this.fail(`${where}: exec env "${item.name}" value must be a string`);
      return { name: item.name, value };
    });
    const installHint = this.string(e, "installHint", `${where} exec`);
    const interactiveMode = this.string(e, "interactiveMode", `${where} exec`);
    return {
      // A bare name is a PATH lookup; a path with a directory part is relative to this file.
      command: command.includes("/") ? this.path(command) : command,
      args: this.stringList(e, "args", `${where} exec`),
      env,
      apiVersion,
      ...(installHint !== undefined ? { installHint } : {}),
      provideClusterInfo: this.bool(e, "provideClusterInfo", `${where} exec`),
      ...(interactiveMode !== undefined ? { interactiveMode } : {}),
    };
  }

  user(name: string, u: Json): UserConfig {
    const where = `user "${name}"`;
    if (u["auth-provider"] !== undefined && u["auth-provider"] !== null)
      this.fail(`${where}: auth-provider is not supported; use exec`);
    const clientCertPem = this.pem(u, "client-certificate", where);
    const clientKeyPem = this.pem(u, "client-key", where);
    if ((clientCertPem === undefined) !== (clientKeyPem === undefined))
      this.fail(`${where}: a client certificate needs its key and a key needs its certificate`);
    const token = this.string(u, "token", where);
    const tokenFileRaw = this.string(u, "tokenFile", where);
    const username = this.string(u, "username", where);
    const password = this.string(u, "password", where);
    const methods: string[] = [];
    if (token !== undefined || tokenFileRaw !== undefined) methods.push("token");
    if (username !== undefined || password !== undefined) methods.push("basic auth");
    if (methods.length > 1)
      this.fail(`${where}: more than one authentication method (${methods.join(", ")})`);
    const hasExec = u.exec !== undefined && u.exec !== null;
    const tokenFile = tokenFileRaw === undefined ? undefined : this.path(tokenFileRaw);
    if (tokenFile !== undefined) {
      try {
        readFileSync(tokenFile, "utf8");
      } catch (err) {
        this.fail(`${where}: cannot read tokenFile ${tokenFileRaw}: ${(err as NodeJS.ErrnoException).code}`);
      }
    }
    return {
      ...(clientCertPem !== undefined ? { clientCertPem, clientKeyPem } : {}),
      ...(token !== undefined ? { token } : {}),
      ...(tokenFile !== undefined ? { tokenFile } : {}),
      ...(username !== undefined ? { username } : {}),
      ...(password !== undefined ? { password } : {}),
      ...(hasExec ? { exec: this.exec(u.exec, where) } : {}),
    };
  }
}

/** Parse the text of a kubeconfig (YAML or JSON). `path` names it in errors and anchors relative paths. */
export function parseKubeconfig(text: string, path: string): KubeconfigFile {
  const r: Reader = new Reader(path);
  let doc: unknown;
  try {
    const trimmed = text.trim();
    // Upstream reads an empty file as an empty config.
    doc = trimmed === "" ? {} : trimmed.startsWith("{") ? JSON.parse(text) : loadYaml(text);
  } catch (err) {
    r.fail(`not valid YAML or JSON: ${(err as Error).message.split("\n")[0]}`);
  }
  if (doc === undefined || doc === null) doc = {};
  if (!isObject(doc)) r.fail("the document must be a mapping");
  if (doc.kind !== undefined && doc.kind !== "Config")
    r.fail(`kind is ${JSON.stringify(doc.kind)}, not Config`);
  const clusters = new Map(r.named(doc, "clusters", "cluster").map(([n, c]) => [n, r.cluster(n, c)]));
  const users = new Map(r.named(doc, "users", "user").map(([n, u]) => [n, r.user(n, u)]));
  const contexts = new Map(
    r.named(doc, "contexts", "context").map(([n, c]) => {
      const where = `context "${n}"`;
      const cluster = r.string(c, "cluster", where) ?? "";
      const user = r.string(c, "user", where) ?? "";
      const namespace = r.string(c, "namespace", where);
      return [n, { cluster, user, ...(namespace !== undefined ? { namespace } : {}) }];
    }),
  );
  const currentContext = r.string(doc, "current-context", "document");
  return {
    path,
    ...(currentContext !== undefined ? { currentContext } : {}),
    clusters,
    users,
    contexts,
  };
}

export function readKubeconfigFile(path: string): KubeconfigFile {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (err) {
    throw new Error(`kubeconfig ${path}: cannot read: ${(err as NodeJS.ErrnoException).code ?? err}`);
  }
  return parseKubeconfig(text, path);
}

/** The cluster and user of a context: the one named, else the file's current-context. */
export function resolveContext(file: KubeconfigFile, contextName?: string): ClientConfig {
  const fail = (message: string): never => {
    throw new Error(`kubeconfig ${file.path}: ${message}`);
  };
  const name = contextName ?? file.currentContext;
  if (name === undefined) fail("no current-context is set and no context was named");
  const context = file.contexts.get(name as string);
  if (!context) fail(`context "${name}" not found`);
  const { cluster: clusterName, user: userName, namespace } = context as NonNullable<typeof context>;
  if (clusterName === "") fail(`context "${name}" names no cluster`);
  const cluster = file.clusters.get(clusterName);
  if (!cluster) fail(`cluster "${clusterName}" of context "${name}" not found`);
  let user: UserConfig = {};
  if (userName !== "") {
    const found = file.users.get(userName);
    if (!found) fail(`user "${userName}" of context "${name}" not found`);
    user = found as UserConfig;
  }
  return {
    contextName: name as string,
    ...(namespace !== undefined ? { namespace } : {}),
    cluster: cluster as ClusterConfig,
    user,
    ...(userName !== "" ? { userName } : {}),
  };
}

/** Load a kubeconfig file and pick a context (the current one unless named). */
export function loadKubeconfig(path: string, options: { context?: string } = {}): ClientConfig {
  return resolveContext(readKubeconfigFile(path), options.context);
}
