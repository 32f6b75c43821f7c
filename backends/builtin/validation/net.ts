// IP addresses and CIDRs read the way upstream's "sloppy" parsers read them (IPv4 parts may carry
// leading zeros), plus the address classes validation refuses for endpoints and external IPs.

/** 16 bytes; IPv4 addresses are held in their IPv4-mapped IPv6 form. */
export type IPBytes = Uint8Array;

const V4_PREFIX = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff];

function parseV4(s: string, out: Uint8Array, at: number): boolean {
  let part = 0;
  let digits = 0;
  let dots = 0;
  for (let i = 0; i <= s.length; i++) {
    const c = i < s.length ? s.charCodeAt(i) : 46; // a final '.' closes the last part
    if (c >= 48 && c <= 57) {
      part = part * 10 + (c - 48);
      digits++;
      if (digits > 3 || part > 255) return false;
    } else if (c === 46) {
      if (digits === 0) return false;
      if (i < s.length) dots++;
      if (dots > 3) return false;
      out[at++] = part;
      part = 0;
      digits = 0;
    } else {
      return false;
    }
  }
  return dots === 3;
}

function hexValue(c: number): number {
  if (c >= 48 && c <= 57) return c - 48;
  if (c >= 97 && c <= 102) return c - 87;
  if (c >= 65 && c <= 70) return c - 55;
  return -1;
}

function parseV6(s: string): IPBytes | undefined {
  const ip = new Uint8Array(16);
  let ellipsis = -1;
  let i = 0;
  let n = 0; // bytes written
  if (s.startsWith("::")) {
    ellipsis = 0;
    i = 2;
    if (i === s.length) return ip;
  }
  while (n < 16) {
    // A group, or an embedded IPv4 address at the end.
    let v = 0;
    let j = i;
    while (j < s.length && j - i < 5) {
      const h = hexValue(s.charCodeAt(j));
      if (h < 0) break;
      v = v * 16 + h;
      j++;
    }
    if (j === i || j - i > 4) return undefined;
    if (j < s.length && s[j] === ".") {
      if (ellipsis < 0 && n !== 12) return undefined;
      if (n + 4 > 16) return undefined;
      if (!parseV4(s.slice(i), ip, n)) return undefined;
      n += 4;
      i = s.length;
      break;
    }
    ip[n] = v >> 8;
    ip[n + 1] = v & 0xff;
    n += 2;
    i = j;
    if (i === s.length) break;
    if (s[i] !== ":" || i + 1 === s.length) return undefined;
    i++;
    if (s[i] === ":") {
      if (ellipsis >= 0) return undefined;
      ellipsis = n;
      i++;
      if (i === s.length) break;
    }
  }
  if (i !== s.length) return undefined;
  if (n < 16) {
    if (ellipsis < 0) return undefined;
    const shift = 16 - n;
    for (let k = n - 1; k >= ellipsis; k--) ip[k + shift] = ip[k]!;
    for (let k = ellipsis + shift - 1; k >= ellipsis; k--) ip[k] = 0;
  } else if (ellipsis >= 0) {
    return undefined;
  }
  return ip;
}

/** The address, or undefined when the text is not an IP address. */
export function parseIP(s: string): IPBytes | undefined {
  if (s.length === 0) return undefined;
  if (s.includes(":")) return parseV6(s);
  const ip = new Uint8Array(16);
  for (let i = 0; i < 12; i++) ip[i] = V4_PREFIX[i]!;
  return parseV4(s, ip, 12) ? ip : undefined;
}

export function isV4(ip: IPBytes): boolean {
  for (let i = 0; i < 12; i++) if (ip[i] !== V4_PREFIX[i]) return false;
  return true;
}

export function isIPv6String(s: string): boolean {
  const ip = parseIP(s);
  return ip !== undefined && !isV4(ip);
}

export function isUnspecified(ip: IPBytes): boolean {
  const from = isV4(ip) ? 12 : 0;
  for (let i = from; i < 16; i++) if (ip[i] !== 0) return false;
  return true;
}

export function isLoopback(ip: IPBytes): boolean {
  if (isV4(ip)) return ip[12] === 127;
  for (let i = 0; i < 15; i++) if (ip[i] !== 0) return false;
  return ip[15] === 1;
}

export function isLinkLocalUnicast(ip: IPBytes): boolean {
  if (isV4(ip)) return ip[12] === 169 && ip[13] === 254;
  return ip[0] === 0xfe && (ip[1]! & 0xc0) === 0x80;
}

export function isLinkLocalMulticast(ip: IPBytes): boolean {
  if (isV4(ip)) return ip[12] === 224 && ip[13] === 0 && ip[14] === 0;
  return ip[0] === 0xff && (ip[1]! & 0x0f) === 0x02;
}

export interface CIDR {
  readonly ip: IPBytes;
  /** Prefix length counted in the address's own family (0-32 or 0-128). */
  readonly bits: number;
  readonly v4: boolean;
}

/** `addr/len` with the address masked to the network, or undefined when malformed. */
export function parseCIDR(s: string): CIDR | undefined {
  const slash = s.indexOf("/");
  if (slash < 0) return undefined;
  const addr = s.slice(0, slash);
  const len = s.slice(slash + 1);
  if (!/^[0-9]{1,3}$/.test(len)) return undefined;
  const ip = parseIP(addr);
  if (!ip) return undefined;
  const v4 = !addr.includes(":");
  const bits = Number(len);
  if (bits > (v4 ? 32 : 128)) return undefined;
  const masked = new Uint8Array(ip);
  const total = v4 ? bits + 96 : bits;
  for (let i = 0; i < 16; i++) {
    const keep = Math.max(0, Math.min(8, total - i * 8));
    masked[i] = masked[i]! & ((0xff << (8 - keep)) & 0xff);
  }
  return { ip: masked, bits, v4 };
}

/** Whether `ip` lies in the network `net`. */
export function cidrContains(net: CIDR, ip: IPBytes): boolean {
  if (net.v4 !== isV4(ip)) return false;
  const total = net.v4 ? net.bits + 96 : net.bits;
  for (let i = 0; i < 16; i++) {
    const keep = Math.max(0, Math.min(8, total - i * 8));
    const mask = (0xff << (8 - keep)) & 0xff;
    if ((ip[i]! & mask) !== net.ip[i]) return false;
  }
  return true;
}
