// Temporary directories, kubeconfig files and executable plugin scripts for tests.
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { dump } from "js-yaml";

export interface TempDir {
  readonly path: string;
  /** Write a file (mode 0755 when `executable`) and return its path. */
  write(name: string, content: string, executable?: boolean): string;
  remove(): void;
}

export function tempDir(prefix = "client-test-"): TempDir {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return {
    path,
    write(name, content, executable = false) {
      const file = join(path, name);
      writeFileSync(file, content);
      if (executable) chmodSync(file, 0o755);
      return file;
    },
    remove: () => rmSync(path, { recursive: true, force: true }),
  };
}

const b64 = (text: string) => Buffer.from(text).toString("base64");

export interface KubeconfigSpec {
  readonly server: string;
  readonly caPem?: string;
  /** The `user` mapping, as written in the file. */
  readonly user?: Record<string, unknown>;
  readonly cluster?: Record<string, unknown>;
}

/** A one-context kubeconfig in YAML: cluster `c`, user `u`, context `ctx` (current). */
export function kubeconfigYaml(spec: KubeconfigSpec): string {
  return dump({
    apiVersion: "v1",
    kind: "Config",
    clusters: [
      {
        name: "c",
        cluster: {
          server: spec.server,
          ...(spec.caPem ? { "certificate-authority-data": b64(spec.caPem) } : {}),
          ...spec.cluster,
        },
      },
    ],
    users: [{ name: "u", user: spec.user ?? {} }],
    contexts: [{ name: "ctx", context: { cluster: "c", user: "u" } }],
    "current-context": "ctx",
  });
}

export { b64 };
