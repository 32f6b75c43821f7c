// The parts of Go's net/url the URL library needs: ParseRequestURI (which decides isURL and
// url()), Parse, and the accessors' views (host name, port, escaped path, query). Works on UTF-8
// bytes like Go; errors carry Go's texts.

type Mode = "path" | "host" | "zone" | "userPassword" | "queryComponent";

export class UrlError extends Error {}

export interface GoURL {
  readonly scheme: string;
  readonly opaque: string;
  readonly host: string;
  readonly path: string;
  readonly rawPath: string;
  readonly rawQuery: string;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

function isAlnum(c: number): boolean {
  return (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || (c >= 0x30 && c <= 0x39);
}

function isHex(c: number | undefined): boolean {
  return (
    c !== undefined && ((c >= 0x30 && c <= 0x39) || (c >= 0x61 && c <= 0x66) || (c >= 0x41 && c <= 0x46))
  );
}

function unhex(c: number): number {
  if (c <= 0x39) return c - 0x30;
  if (c >= 0x61) return c - 0x61 + 10;
  return c - 0x41 + 10;
}

function shouldEscape(c: number, mode: Mode): boolean {
  if (isAlnum(c)) return false;
  const ch = String.fromCharCode(c);
  if ((mode === "host" || mode === "zone") && `!$&'()*+,;=:[]<>"`.includes(ch)) return false;
  if ("-_.~".includes(ch)) return false;
  if ("$&+,/:;=?@".includes(ch)) {
    switch (mode) {
      case "path":
        return ch === "?";
      case "userPassword":
        return "@/?:".includes(ch);
      case "queryComponent":
        return true;
      default:
        return true;
    }
  }
  return true;
}

function quote(s: string): string {
  return JSON.stringify(s);
}

function urlUnescape(s: string, mode: Mode): string {
  const b = encoder.encode(s);
  const out: number[] = [];
  for (let i = 0; i < b.length; ) {
    const c = b[i] as number;
    if (c === 0x25) {
      if (i + 2 >= b.length || !isHex(b[i + 1]) || !isHex(b[i + 2])) {
        throw new UrlError(`invalid URL escape ${quote(decoder.decode(b.slice(i, i + 3)))}`);
      }
      const v = (unhex(b[i + 1] as number) << 4) | unhex(b[i + 2] as number);
      const seq = decoder.decode(b.slice(i, i + 3));
      if (mode === "host" && unhex(b[i + 1] as number) < 8 && seq !== "%25") {
        throw new UrlError(`invalid URL escape ${quote(seq)}`);
      }
      if (mode === "zone" && seq !== "%25" && v !== 0x20 && shouldEscape(v, "host")) {
        throw new UrlError(`invalid URL escape ${quote(seq)}`);
      }
      out.push(v);
      i += 3;
    } else if (c === 0x2b) {
      out.push(mode === "queryComponent" ? 0x20 : c);
      i++;
    } else {
      if ((mode === "host" || mode === "zone") && c < 0x80 && shouldEscape(c, mode)) {
        throw new UrlError(`invalid character ${quote(String.fromCharCode(c))} in host name`);
      }
      out.push(c);
      i++;
    }
  }
  return decoder.decode(new Uint8Array(out));
}

function urlEscape(s: string, mode: Mode): string {
  let out = "";
  for (const c of encoder.encode(s)) {
    if (!shouldEscape(c, mode)) out += String.fromCharCode(c);
    else if (c === 0x20 && mode === "queryComponent") out += "+";
    else out += `%${c.toString(16).toUpperCase().padStart(2, "0")}`;
  }
  return out;
}

function validOptionalPort(port: string): boolean {
  return port === "" || /^:[0-9]*$/.test(port);
}

function parseHost(host: string): string {
  if (host.startsWith("[")) {
    const i = host.lastIndexOf("]");
    if (i < 0) throw new UrlError("missing ']' in host");
    const colonPort = host.slice(i + 1);
    if (!validOptionalPort(colonPort)) throw new UrlError(`invalid port ${quote(colonPort)} after host`);
    const zone = host.slice(0, i).indexOf("%25");
    if (zone >= 0) {
      return (
        urlUnescape(host.slice(0, zone), "host") +
        urlUnescape(host.slice(zone, i), "zone") +
        urlUnescape(host.slice(i), "host")
      );
    }
  } else {
    const i = host.lastIndexOf(":");
    if (i !== -1) {
      const colonPort = host.slice(i);
      if (!validOptionalPort(colonPort)) throw new UrlError(`invalid port ${quote(colonPort)} after host`);
    }
  }
  return urlUnescape(host, "host");
}

function parseAuthority(authority: string): string {
  const at = authority.lastIndexOf("@");
  const host = parseHost(at < 0 ? authority : authority.slice(at + 1));
  if (at >= 0) {
    const userinfo = authority.slice(0, at);
    if (!/^[A-Za-z0-9\-._:~!$&'()*+,;=%@]*$/.test(userinfo)) throw new UrlError("net/url: invalid userinfo");
    const colon = userinfo.indexOf(":");
    urlUnescape(colon < 0 ? userinfo : userinfo.slice(0, colon), "userPassword");
    if (colon >= 0) urlUnescape(userinfo.slice(colon + 1), "userPassword");
  }
  return host;
}

function getScheme(raw: string): [string, string] {
  for (let i = 0; i < raw.length; i++) {
    const c = raw.charCodeAt(i);
    if ((c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a)) continue;
    if ((c >= 0x30 && c <= 0x39) || c === 0x2b || c === 0x2d || c === 0x2e) {
      if (i === 0) return ["", raw];
      continue;
    }
    if (c === 0x3a) {
      if (i === 0) throw new UrlError("missing protocol scheme");
      return [raw.slice(0, i), raw.slice(i + 1)];
    }
    return ["", raw];
  }
  return ["", raw];
}

function parse(raw: string, viaRequest: boolean): GoURL {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: Go rejects control characters
  if (/[\x00-\x1f\x7f]/.test(raw)) throw new UrlError("net/url: invalid control character in URL");
  if (raw === "" && viaRequest) throw new UrlError("empty url");
  if (raw === "*") return { scheme: "", opaque: "", host: "", path: "*", rawPath: "", rawQuery: "" };
  const [schemeRaw, afterScheme] = getScheme(raw);
  const scheme = schemeRaw.toLowerCase();
  let rest = afterScheme;
  let rawQuery = "";
  if (rest.endsWith("?") && rest.indexOf("?") === rest.length - 1) {
    rest = rest.slice(0, -1);
  } else {
    const q = rest.indexOf("?");
    if (q >= 0) {
      rawQuery = rest.slice(q + 1);
      rest = rest.slice(0, q);
    }
  }
  if (!rest.startsWith("/")) {
    if (scheme !== "") return { scheme, opaque: rest, host: "", path: "", rawPath: "", rawQuery };
    if (viaRequest) throw new UrlError("invalid URI for request");
    const slash = rest.indexOf("/");
    if ((slash < 0 ? rest : rest.slice(0, slash)).includes(":")) {
      throw new UrlError("first path segment in URL cannot contain colon");
    }
  }
  let host = "";
  if ((scheme !== "" || (!viaRequest && !rest.startsWith("///"))) && rest.startsWith("//")) {
    let authority = rest.slice(2);
    rest = "";
    const slash = authority.indexOf("/");
    if (slash >= 0) {
      rest = authority.slice(slash);
      authority = authority.slice(0, slash);
    }
    host = parseAuthority(authority);
  }
  const path = urlUnescape(rest, "path");
  const rawPath = urlEscape(path, "path") === rest ? "" : rest;
  return { scheme, opaque: "", host, path, rawPath, rawQuery };
}

function wrap<T>(raw: string, fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    if (e instanceof UrlError) throw new UrlError(`parse ${quote(raw)}: ${e.message}`);
    throw e;
  }
}

/** Go's url.ParseRequestURI: an absolute URI or an absolute path; a `#` is not a fragment. */
export function parseRequestURI(raw: string): GoURL {
  return wrap(raw, () => parse(raw, true));
}

/** Go's url.Parse (the fragment is split off and not kept). */
export function parseURL(raw: string): GoURL {
  const hash = raw.indexOf("#");
  const u = hash < 0 ? raw : raw.slice(0, hash);
  const parsed = wrap(u, () => parse(u, false));
  if (hash >= 0) wrap(raw, () => urlUnescape(raw.slice(hash + 1), "path"));
  return parsed;
}

function splitHostPort(hostPort: string): [string, string] {
  let host = hostPort;
  let port = "";
  const colon = host.lastIndexOf(":");
  if (colon !== -1 && validOptionalPort(host.slice(colon))) {
    port = host.slice(colon + 1);
    host = host.slice(0, colon);
  }
  if (host.startsWith("[") && host.endsWith("]")) host = host.slice(1, -1);
  return [host, port];
}

export function hostname(u: GoURL): string {
  return splitHostPort(u.host)[0];
}

export function port(u: GoURL): string {
  return splitHostPort(u.host)[1];
}

function validEncoded(s: string, mode: Mode): boolean {
  for (const c of encoder.encode(s)) {
    if ("!$&'()*+,;=:@[]%".includes(String.fromCharCode(c))) continue;
    if (shouldEscape(c, mode)) return false;
  }
  return true;
}

export function escapedPath(u: GoURL): string {
  if (u.rawPath !== "" && validEncoded(u.rawPath, "path")) {
    try {
      if (urlUnescape(u.rawPath, "path") === u.path) return u.rawPath;
    } catch {
      // fall through to escaping the decoded path
    }
  }
  if (u.path === "*") return "*";
  return urlEscape(u.path, "path");
}

/** Go's url.Values of the query: repeated keys collect values; malformed pairs are skipped. */
export function query(u: GoURL): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const pair of u.rawQuery.split("&")) {
    if (pair === "" || pair.includes(";")) continue;
    const eq = pair.indexOf("=");
    try {
      const key = urlUnescape(eq < 0 ? pair : pair.slice(0, eq), "queryComponent");
      const value = urlUnescape(eq < 0 ? "" : pair.slice(eq + 1), "queryComponent");
      const list = out.get(key);
      if (list === undefined) out.set(key, [value]);
      else list.push(value);
    } catch {
      // Go drops pairs it cannot unescape
    }
  }
  return out;
}
