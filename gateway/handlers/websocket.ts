// WebSocket (RFC 6455), the server's side as far as a watch needs it, as upstream's watch server
// (golang.org/x/net/websocket) does it: the handshake's checks and its 101 answer, each message
// sent as one unmasked frame, and the client's frames read only to answer pings and closes (a
// watch client has nothing else to say; upstream reads and drops it too).
import { createHash } from "node:crypto";
import { EventEmitter } from "node:events";
import type { IncomingHttpHeaders, ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { clientNames } from "../../backends/naming/index.ts";
import { ApiError, errors } from "../request/api-error.ts";

/** The GUID RFC 6455 appends to the client's key. */
const ACCEPT_GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";

const OPCODE = { continuation: 0x0, text: 0x1, binary: 0x2, close: 0x8, ping: 0x9, pong: 0xa } as const;

/** Close codes (RFC 6455 section 7.4.1). */
export const CLOSE = { normal: 1000, protocolError: 1002, tooBig: 1009 } as const;

/** After its close frame, how long the server waits for the client's before dropping the connection. */
const CLOSE_GRACE_MS = 5_000;

function headerValue(value: string | string[] | undefined): string {
  return (Array.isArray(value) ? value[0] : value) ?? "";
}

/** Upstream's wsstream.IsWebSocketRequest: `Upgrade: websocket` and `upgrade` among the Connection tokens. */
export function isWebSocketRequest(headers: IncomingHttpHeaders): boolean {
  if (headerValue(headers.upgrade).toLowerCase() !== "websocket") return false;
  return /(^|.*,\s*)upgrade($|\s*,)/.test(headerValue(headers.connection).toLowerCase());
}

/** The `Sec-WebSocket-Accept` answer to a client's key. */
export function acceptKey(key: string): string {
  return createHash("sha1").update(`${key}${ACCEPT_GUID}`).digest("base64");
}

/** What a checked handshake answers with. */
export interface Handshake {
  readonly accept: string;
  /** The subprotocol echoed back, when the client offered one. */
  readonly protocol?: string;
}

/** Whether an Origin header is an absolute URL or path, as Go's url.ParseRequestURI accepts. */
function parsableOrigin(origin: string): boolean {
  if (origin.startsWith("/")) return true;
  if (!/^[a-z][a-z0-9+.-]*:/i.test(origin)) return false;
  return URL.canParse(origin);
}

/**
 * Checks a WebSocket handshake as upstream's watch server does; throws the Status for one it
 * refuses (upstream answers these with a bare status line). The bearer-token subprotocol is the
 * authenticator's: it is never echoed, so at most one other may be offered.
 */
export function checkHandshake(
  method: string,
  headers: IncomingHttpHeaders,
  setHeader: (name: string, value: string) => void,
): Handshake {
  if (method !== "GET") {
    throw new ApiError(
      405,
      "MethodNotAllowed",
      "a WebSocket handshake must be a GET request (bad method)",
      {},
    );
  }
  const key = headerValue(headers["sec-websocket-key"]).trim();
  if (key === "") throw errors.badRequest("the WebSocket handshake has no Sec-WebSocket-Key header");
  if (headerValue(headers["sec-websocket-version"]).trim() !== "13") {
    // The refusal names the version this server speaks (RFC 6455 section 4.4).
    setHeader("sec-websocket-version", "13");
    throw errors.badRequest("missing or bad WebSocket Version: only version 13 is supported");
  }
  // Upstream's watch handler takes browser connections only: a handshake without a valid Origin
  // is refused, as golang.org/x/net/websocket.Handler does.
  const origin = headerValue(headers.origin);
  if (origin === "" || !parsableOrigin(origin))
    throw new ApiError(403, "Forbidden", "the WebSocket handshake has no valid Origin header", {});
  const offered = headerValue(headers["sec-websocket-protocol"]).trim();
  const protocols =
    offered === ""
      ? []
      : offered
          .split(",")
          .map((p) => p.trim())
          .filter((p) => !p.startsWith(clientNames.webSocketBearerProtocolPrefix));
  if (protocols.length > 1)
    throw errors.badRequest(
      `missing or bad WebSocket-Protocol: the server chooses none of several offered (${protocols.join(", ")})`,
    );
  const accept = acceptKey(key);
  return protocols[0] !== undefined ? { accept, protocol: protocols[0] } : { accept };
}

/** One unmasked frame with its FIN bit set: the header and payload in one buffer (one write). */
export function encodeFrame(opcode: number, payload: string | Buffer): Buffer {
  const length = typeof payload === "string" ? Buffer.byteLength(payload) : payload.length;
  const headerLength = length < 126 ? 2 : length <= 0xffff ? 4 : 10;
  const frame = Buffer.allocUnsafe(headerLength + length);
  frame[0] = 0x80 | opcode;
  if (length < 126) frame[1] = length;
  else if (length <= 0xffff) {
    frame[1] = 126;
    frame.writeUInt16BE(length, 2);
  } else {
    frame[1] = 127;
    frame.writeBigUInt64BE(BigInt(length), 2);
  }
  if (typeof payload === "string") frame.write(payload, headerLength, "utf8");
  else payload.copy(frame, headerLength);
  return frame;
}

/** A close frame's payload: the code, big-endian. */
function closePayload(code: number): Buffer {
  const payload = Buffer.alloc(2);
  payload.writeUInt16BE(code, 0);
  return payload;
}

interface FrameHead {
  readonly fin: boolean;
  readonly rsv: number;
  readonly opcode: number;
  readonly masked: boolean;
  readonly length: number;
  readonly headerLength: number;
}

/** A frame's head from the start of `data`; undefined until enough bytes arrived; -1 length when too long. */
export function parseFrameHead(data: Buffer): FrameHead | undefined {
  if (data.length < 2) return undefined;
  const b0 = data[0] as number;
  const b1 = data[1] as number;
  const masked = (b1 & 0x80) !== 0;
  let length = b1 & 0x7f;
  let offset = 2;
  if (length === 126) {
    if (data.length < 4) return undefined;
    length = data.readUInt16BE(2);
    offset = 4;
  } else if (length === 127) {
    if (data.length < 10) return undefined;
    const big = data.readBigUInt64BE(2);
    length = big > BigInt(Number.MAX_SAFE_INTEGER) ? -1 : Number(big);
    offset = 10;
  }
  const headerLength = offset + (masked ? 4 : 0);
  if (data.length < headerLength) return undefined;
  return { fin: (b0 & 0x80) !== 0, rsv: b0 & 0x70, opcode: b0 & 0x0f, masked, length, headerLength };
}

/**
 * A server-side WebSocket over a socket taken from the HTTP server. `write` sends one message
 * (text, or binary when made so) and says, as a stream does, whether the socket wants a pause;
 * `drain` and `close` are re-emitted from the socket. `end` closes with 1000.
 */
export class WebSocketConnection extends EventEmitter {
  readonly #socket: Socket;
  readonly #binary: boolean;
  #pending: Buffer = Buffer.alloc(0);
  /** Bytes of a data frame's payload still to be read and dropped. */
  #discard = 0;
  #closeSent = false;
  #closeReceived = false;

  constructor(socket: Socket, binary: boolean) {
    super();
    this.#socket = socket;
    this.#binary = binary;
    socket.on("data", (chunk: Buffer) => this.#receive(chunk));
    socket.on("drain", () => this.emit("drain"));
    socket.once("close", () => this.emit("close"));
    socket.on("error", () => socket.destroy());
    // A client that half-closes without a close frame is gone.
    socket.once("end", () => this.#finish());
  }

  /** Sends one message; false when the socket's buffer is full (wait for `drain`). */
  write(message: string | Buffer): boolean {
    if (this.#closeSent || this.#socket.destroyed) return false;
    return this.#socket.write(encodeFrame(this.#binary ? OPCODE.binary : OPCODE.text, message));
  }

  /** Sends the close frame (once) and ends the connection once the client answers or after a grace. */
  close(code: number = CLOSE.normal): void {
    if (this.#closeSent) return;
    this.#closeSent = true;
    if (this.#socket.destroyed) return;
    this.#socket.write(encodeFrame(OPCODE.close, closePayload(code)));
    if (this.#closeReceived) {
      this.#finish();
      return;
    }
    const timer = setTimeout(() => this.#socket.destroy(), CLOSE_GRACE_MS);
    timer.unref();
    this.#socket.once("close", () => clearTimeout(timer));
  }

  end(): void {
    this.close(CLOSE.normal);
  }

  destroy(): void {
    this.#socket.destroy();
  }

  get writableEnded(): boolean {
    return this.#closeSent || this.#socket.writableEnded;
  }

  get writableFinished(): boolean {
    return this.#socket.writableFinished;
  }

  #finish(): void {
    if (!this.#socket.writableEnded) this.#socket.end();
  }

  #fail(code: number): void {
    this.#closeReceived = true;
    this.#pending = Buffer.alloc(0);
    this.close(code);
    this.#finish();
  }

  #receive(chunk: Buffer): void {
    if (this.#closeReceived) return;
    let data = this.#pending.length > 0 ? Buffer.concat([this.#pending, chunk]) : chunk;
    this.#pending = Buffer.alloc(0);
    while (data.length > 0 && !this.#closeReceived) {
      if (this.#discard > 0) {
        const n = Math.min(this.#discard, data.length);
        this.#discard -= n;
        data = data.subarray(n);
        continue;
      }
      const head = parseFrameHead(data);
      if (!head) break;
      // Client frames are masked and use no extension (none was agreed).
      if (!head.masked || head.rsv !== 0) {
        this.#fail(CLOSE.protocolError);
        return;
      }
      if (head.length < 0) {
        this.#fail(CLOSE.tooBig);
        return;
      }
      if (head.opcode >= 0x8) {
        if (head.opcode > OPCODE.pong || !head.fin || head.length > 125) {
          this.#fail(CLOSE.protocolError);
          return;
        }
        if (data.length < head.headerLength + head.length) break;
        const mask = data.subarray(head.headerLength - 4, head.headerLength);
        const payload = Buffer.from(data.subarray(head.headerLength, head.headerLength + head.length));
        for (let i = 0; i < payload.length; i++)
          payload[i] = (payload[i] as number) ^ (mask[i % 4] as number);
        data = data.subarray(head.headerLength + head.length);
        this.#control(head.opcode, payload);
        continue;
      }
      if (head.opcode > OPCODE.binary) {
        this.#fail(CLOSE.protocolError);
        return;
      }
      // A message from the client: read and dropped, as upstream's watch server does.
      data = data.subarray(head.headerLength);
      this.#discard = head.length;
    }
    // Only a frame head or a control frame waits here: at most 139 bytes.
    if (data.length > 0 && !this.#closeReceived) this.#pending = Buffer.from(data);
  }

  #control(opcode: number, payload: Buffer): void {
    if (opcode === OPCODE.ping) {
      if (!this.#closeSent && !this.#socket.destroyed) this.#socket.write(encodeFrame(OPCODE.pong, payload));
      return;
    }
    if (opcode !== OPCODE.close) return;
    this.#closeReceived = true;
    // The client's code is echoed, as RFC 6455 suggests; then the connection ends.
    const code = payload.length >= 2 ? payload.readUInt16BE(0) : CLOSE.normal;
    this.close(code);
    this.#finish();
  }
}

/**
 * Answers the handshake on the response's socket, which is taken from the HTTP server (the
 * caller has hijacked the reply), and returns the connection. `binary` sends messages as binary
 * frames (Protobuf) instead of text.
 */
export function acceptWebSocket(
  raw: ServerResponse,
  handshake: Handshake,
  binary: boolean,
): WebSocketConnection {
  const socket = raw.socket as Socket;
  raw.detachSocket(socket);
  let head =
    "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" +
    `Sec-WebSocket-Accept: ${handshake.accept}\r\n`;
  if (handshake.protocol !== undefined) head += `Sec-WebSocket-Protocol: ${handshake.protocol}\r\n`;
  socket.write(`${head}\r\n`);
  socket.setNoDelay(true);
  return new WebSocketConnection(socket, binary);
}
