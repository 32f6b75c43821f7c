// Peers that stand in for nodes and pods must listen on an address Nodes may name: not loopback
// (the proxy verb and the kubelet client refuse anything but global unicast addresses).
import { networkInterfaces } from "node:os";

/** An IPv4 address of this machine that is not loopback, or undefined. */
export function outsideAddress(): string | undefined {
  for (const list of Object.values(networkInterfaces())) {
    for (const a of list ?? []) if (a.family === "IPv4" && !a.internal) return a.address;
  }
  return undefined;
}
