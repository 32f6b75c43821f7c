// Credential plugins (SPEC.md, "Credential plugins (client side)"): run the configured command
// with an ExecCredential in the KUBERNETES_EXEC_INFO environment variable, read the one it prints,
// and keep the answer until it expires or the server refuses it with a 401.
import { spawn } from "node:child_process";
import { createPrivateKey, X509Certificate } from "node:crypto";
import type { Naming } from "../../backends/naming/index.ts";
import type { ExecConfig } from "./kubeconfig.ts";

/** Upstream's name for the variable; plugins written for upstream clients read it. */
export const EXEC_INFO_ENV = "KUBERNETES_EXEC_INFO";

const INTERACTIVE_MODES = ["Never", "IfAvailable", "Always"] as const;
type InteractiveMode = (typeof INTERACTIVE_MODES)[number];

/** Plugins that print more than this are broken; their output is not kept. */
const MAX_OUTPUT = 1 << 20;

/** What the plugin learns about the cluster when `provideClusterInfo` is set. */
export interface ExecClusterInfo {
  readonly server: string;
  readonly tlsServerName?: string;
  readonly insecureSkipTlsVerify?: boolean;
  readonly caPem?: string;
  /** The cluster's `client.authentication.<domain>/exec` extension, passed through as is. */
  readonly config?: unknown;
}

export interface ExecCredentials {
  readonly token?: string;
  readonly clientCertPem?: string;
  readonly clientKeyPem?: string;
  /** Milliseconds since the epoch; absent: good until a 401. */
  readonly expiresAt?: number;
}

export interface ExecProviderOptions {
  readonly naming: Naming;
  readonly cluster?: ExecClusterInfo;
  /** The user entry's name, for messages. */
  readonly userName?: string;
  /** Whether standard input is a terminal; default `process.stdin.isTTY`. */
  readonly stdinIsTerminal?: boolean;
  /** Clock for expiry (milliseconds since the epoch). */
  readonly now?: () => number;
}

export class ExecCredentialProvider {
  readonly #config: ExecConfig;
  readonly #mode: InteractiveMode;
  readonly #cluster: ExecClusterInfo | undefined;
  readonly #stdinIsTerminal: boolean;
  readonly #now: () => number;
  #cached: ExecCredentials | undefined;
  #pending: Promise<ExecCredentials> | undefined;
  #runs = 0;

  constructor(config: ExecConfig, options: ExecProviderOptions) {
    const who = options.userName ?? "the user";
    const group = options.naming.group("client.authentication");
    if (config.apiVersion !== `${group}/v1` && config.apiVersion !== `${group}/v1beta1`)
      throw new Error(`exec plugin: invalid apiVersion ${JSON.stringify(config.apiVersion)}`);
    const mode = config.interactiveMode;
    if (mode === undefined && config.apiVersion.endsWith("/v1"))
      throw new Error(
        `exec plugin: interactiveMode must be specified for ${who} to use exec authentication plugin`,
      );
    if (mode !== undefined && !(INTERACTIVE_MODES as readonly string[]).includes(mode))
      throw new Error(`exec plugin: invalid interactiveMode for ${who}: ${JSON.stringify(mode)}`);
    this.#config = config;
    this.#mode = (mode as InteractiveMode | undefined) ?? "IfAvailable";
    this.#cluster = config.provideClusterInfo ? options.cluster : undefined;
    this.#stdinIsTerminal = options.stdinIsTerminal ?? process.stdin.isTTY === true;
    this.#now = options.now ?? Date.now;
  }

  /** How many times the plugin has been started (for tests and diagnostics). */
  get runs(): number {
    return this.#runs;
  }

  /** The current credentials, running the plugin when none are cached or they expired. */
  credentials(): Promise<ExecCredentials> {
    const cached = this.#cached;
    if (cached && (cached.expiresAt === undefined || this.#now() < cached.expiresAt))
      return Promise.resolve(cached);
    // Concurrent callers share one run: the plugin may prompt, and it should prompt once.
    this.#pending ??= this.#run().finally(() => {
      this.#pending = undefined;
    });
    return this.#pending;
  }

  /** The server refused `stale` (a 401): forget it unless a newer answer replaced it already. */
  invalidate(stale: ExecCredentials): void {
    if (this.#cached === stale) this.#cached = undefined;
  }

  async #run(): Promise<ExecCredentials> {
    const interactive = this.#interactive();
    const input = {
      apiVersion: this.#config.apiVersion,
      kind: "ExecCredential",
      spec: { ...(this.#cluster ? { cluster: clusterSpec(this.#cluster) } : {}), interactive },
    };
    const env: Record<string, string | undefined> = { ...process.env };
    for (const { name, value } of this.#config.env) env[name] = value;
    env[EXEC_INFO_ENV] = JSON.stringify(input);
    this.#runs++;
    const stdout = await this.#spawn(env, interactive);
    const creds = this.#parse(stdout);
    this.#cached = creds;
    return creds;
  }

  #interactive(): boolean {
    if (this.#mode === "Never") return false;
    if (this.#mode === "Always" && !this.#stdinIsTerminal)
      throw new Error("exec plugin cannot support interactive mode: standard input is not a terminal");
    return this.#stdinIsTerminal;
  }

  #spawn(env: Record<string, string | undefined>, interactive: boolean): Promise<string> {
    const { command, args, installHint } = this.#config;
    return new Promise((resolve, reject) => {
      let child: ReturnType<typeof spawn>;
      try {
        child = spawn(command, [...args], {
          env,
          // Only an interactive plugin gets our terminal; stderr is the plugin's way to talk to the user.
          stdio: [interactive ? "inherit" : "ignore", "pipe", "inherit"],
        });
      } catch (err) {
        reject(new Error(`exec: cannot start ${command}: ${(err as Error).message}`));
        return;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      let overflow = false;
      child.stdout?.on("data", (chunk: Buffer) => {
        size += chunk.length;
        if (size > MAX_OUTPUT) {
          overflow = true;
          child.kill();
          return;
        }
        chunks.push(chunk);
      });
      child.on("error", (err: NodeJS.ErrnoException) => {
        if (err.code === "ENOENT") {
          reject(
            new Error(`exec: executable ${command} not found${installHint ? `\n\n${installHint}` : ""}`),
          );
        } else if (err.code === "EACCES") {
          reject(new Error(`exec: executable ${command} cannot be run: permission denied`));
        } else {
          reject(new Error(`exec: executable ${command} failed: ${err.message}`));
        }
      });
      child.on("close", (code, signal) => {
        if (overflow) reject(new Error(`exec: executable ${command} printed more than ${MAX_OUTPUT} bytes`));
        else if (code !== 0)
          reject(
            new Error(
              signal
                ? `exec: executable ${command} was killed by ${signal}`
                : `exec: executable ${command} failed with exit code ${code}`,
            ),
          );
        else resolve(Buffer.concat(chunks).toString("utf8"));
      });
    });
  }

  #parse(stdout: string): ExecCredentials {
    let out: unknown;
    try {
      out = JSON.parse(stdout);
    } catch (err) {
      throw new Error(`exec plugin: decoding stdout: ${(err as Error).message}`);
    }
    if (typeof out !== "object" || out === null || Array.isArray(out))
      throw new Error("exec plugin: decoding stdout: not an ExecCredential object");
    const o = out as Record<string, unknown>;
    if (o.kind !== "ExecCredential")
      throw new Error(`exec plugin: decoding stdout: kind ${JSON.stringify(o.kind)} is not ExecCredential`);
    if (o.apiVersion !== this.#config.apiVersion)
      throw new Error(
        `exec plugin is configured to use API version ${this.#config.apiVersion}, plugin returned version ${String(o.apiVersion)}`,
      );
    const status = o.status;
    if (typeof status !== "object" || status === null)
      throw new Error("exec plugin didn't return a status field");
    const s = status as Record<string, unknown>;
    const str = (field: string): string | undefined => {
      const v = s[field];
      if (v === undefined || v === null || v === "") return undefined;
      if (typeof v !== "string")
        throw new Error(`exec plugin: decoding stdout: status.${field} must be a string`);
      return v;
    };
    const token = str("token");
    const clientCertPem = str("clientCertificateData");
    const clientKeyPem = str("clientKeyData");
    if (token === undefined && clientCertPem === undefined && clientKeyPem === undefined)
      throw new Error("exec plugin didn't return a token or cert/key pair");
    if ((clientCertPem === undefined) !== (clientKeyPem === undefined))
      throw new Error("exec plugin returned only certificate or key, not both");
    if (clientCertPem !== undefined) {
      try {
        new X509Certificate(clientCertPem);
        createPrivateKey(clientKeyPem as string);
      } catch (err) {
        throw new Error(`exec plugin: failed parsing client key/certificate: ${(err as Error).message}`);
      }
    }
    const expiration = str("expirationTimestamp");
    let expiresAt: number | undefined;
    if (expiration !== undefined) {
      expiresAt = Date.parse(expiration);
      if (!/^\d{4}-\d{2}-\d{2}T/.test(expiration) || Number.isNaN(expiresAt))
        throw new Error(
          `exec plugin: decoding stdout: expirationTimestamp ${JSON.stringify(expiration)} is not RFC 3339`,
        );
    }
    return {
      ...(token !== undefined ? { token } : {}),
      ...(clientCertPem !== undefined ? { clientCertPem, clientKeyPem } : {}),
      ...(expiresAt !== undefined ? { expiresAt } : {}),
    };
  }
}

/** The wire form of ExecCredential's `spec.cluster`. */
function clusterSpec(c: ExecClusterInfo): Record<string, unknown> {
  return {
    server: c.server,
    ...(c.tlsServerName ? { "tls-server-name": c.tlsServerName } : {}),
    ...(c.insecureSkipTlsVerify ? { "insecure-skip-tls-verify": true } : {}),
    ...(c.caPem ? { "certificate-authority-data": Buffer.from(c.caPem).toString("base64") } : {}),
    ...(c.config !== undefined ? { config: c.config } : {}),
  };
}
