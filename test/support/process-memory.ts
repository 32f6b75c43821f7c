// A gateway process's memory as the bounded-memory tests read it: its anonymous resident set
// (heap, buffers; file-backed pages such as the embedded store's map are the store's, not the
// request's), optionally after a full garbage collection asked for through its inspector.
import { readFileSync } from "node:fs";
import { freePort, type GatewayProcess, startGateway } from "./gateway-process.ts";

/** RssAnon of `pid`, in bytes. */
export function rssBytes(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const m = /RssAnon:\s+(\d+) kB/.exec(status);
  if (!m) throw new Error("no RssAnon");
  return Number(m[1]) * 1024;
}

/**
 * The gateway's anonymous RSS after a full garbage collection, asked for through its inspector:
 * without it the figure is mostly garbage V8 has not collected yet, and varies run to run.
 */
export async function settledRss(inspectorPort: number, gw: GatewayProcess): Promise<number> {
  const targets = (await (await fetch(`http://127.0.0.1:${inspectorPort}/json/list`)).json()) as {
    webSocketDebuggerUrl: string;
  }[];
  const ws = new WebSocket(targets[0]?.webSocketDebuggerUrl ?? "");
  await new Promise((resolve, reject) => {
    ws.onopen = resolve;
    ws.onerror = reject;
  });
  try {
    for (let id = 1; id <= 2; id++) {
      const reply = new Promise<void>((resolve) => {
        ws.onmessage = (m) => {
          if ((JSON.parse(String(m.data)) as { id?: number }).id === id) resolve();
        };
      });
      ws.send(JSON.stringify({ id, method: "HeapProfiler.collectGarbage" }));
      await reply;
    }
  } finally {
    ws.close();
  }
  return rssBytes(gw.child.pid as number);
}

/** A gateway with its inspector on a loopback port (it inherits NODE_OPTIONS), for settledRss. */
export async function startGatewayWithInspector(
  args: string[],
): Promise<{ gw: GatewayProcess; inspector: number }> {
  const inspector = await freePort();
  const saved = process.env.NODE_OPTIONS;
  process.env.NODE_OPTIONS = `${saved ?? ""} --inspect=127.0.0.1:${inspector}`;
  try {
    return { gw: await startGateway(args), inspector };
  } finally {
    if (saved === undefined) delete process.env.NODE_OPTIONS;
    else process.env.NODE_OPTIONS = saved;
  }
}
