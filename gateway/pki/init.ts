// `npm start -- init --server=https://HOST:PORT [--pki-dir=DIR] [--data-dir=DIR] [--tls-sans=...]`:
// creates the credentials that several replicas share (CA, serving certificate, service-account
// keys, front-proxy CA) once, and an admin.kubeconfig naming --server (a load balancer), then
// exits. Replicas started with the same --pki-dir then present one identity to clients.
import { dirname } from "node:path";
import { loadOptions, OptionError } from "../../config/options.ts";
import { bootstrapPki } from "./bootstrap.ts";

export interface InitResult {
  readonly pkiDir: string;
  readonly adminKubeconfig: string;
  readonly created: readonly string[];
}

/** The flags after `init`: `--server` plus any server flag (data-dir, pki-dir, tls-sans, config). */
export async function runInit(argv: readonly string[]): Promise<InitResult> {
  let server: string | undefined;
  const rest: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === "--server") server = argv[++i];
    else if (arg.startsWith("--server=")) server = arg.slice("--server=".length);
    else rest.push(arg);
  }
  if (!server) throw new OptionError("init: --server=https://HOST:PORT is needed (the address clients use)");
  let url: URL;
  try {
    url = new URL(server);
  } catch {
    throw new OptionError(`init: --server: not a URL: ${server}`);
  }
  if (url.protocol !== "https:" || url.pathname !== "/" || url.search !== "" || url.hash !== "")
    throw new OptionError(`init: --server must be https://HOST[:PORT]: ${server}`);
  const options = loadOptions(rest);
  // The address clients use must be in the serving certificate, whatever --tls-sans says.
  const host = url.hostname.replace(/^\[(.*)\]$/, "$1");
  const pki = await bootstrapPki({
    dataDir: options.dataDir,
    ...(options.pkiDir ? { pkiDir: options.pkiDir } : {}),
    tlsSans: [...options.tlsSans, host],
    serverUrl: url.origin,
    servingProvided: options.tlsCertFile !== undefined,
  });
  return {
    pkiDir: dirname(pki.paths.caCert),
    adminKubeconfig: pki.paths.adminKubeconfig,
    created: pki.created,
  };
}
