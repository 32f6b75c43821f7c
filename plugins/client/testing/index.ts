// Test support for the client module and the webhook callers (not used by product code).
export { b64, type KubeconfigSpec, kubeconfigYaml, type TempDir, tempDir } from "./files.ts";
export {
  type HttpsPeer,
  type PeerHandler,
  type PeerRequest,
  sendJson,
  startHttpsPeer,
} from "./https-peer.ts";
