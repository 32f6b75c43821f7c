// The URL library: url(), isURL() and the accessors of the `kubernetes.URL` type, with Go net/url
// semantics (an absolute URI or an absolute path is a URL).
import type { Environment } from "@marcbachmann/cel-js";
import { CelRuntimeError } from "../errors.ts";
import {
  escapedPath,
  type GoURL,
  hostname,
  parseRequestURI,
  parseURL,
  port,
  query,
  UrlError,
} from "./go-url.ts";

export const URL_TYPE = "kubernetes.URL";

/** A parsed URL value; equal when the source text is equal. */
export class CelURL {
  readonly source: string;
  readonly parsed: GoURL;
  constructor(source: string, parsed: GoURL) {
    this.source = source;
    this.parsed = parsed;
  }
  equals(other: unknown): boolean {
    return other instanceof CelURL && other.source === this.source;
  }
}

function toURL(s: string): CelURL {
  try {
    parseRequestURI(s);
    return new CelURL(s, parseURL(s));
  } catch (e) {
    if (e instanceof UrlError) {
      throw new CelRuntimeError(
        "invalid_argument",
        `URL parse error during conversion from string: ${e.message}`,
      );
    }
    throw e;
  }
}

function isURL(s: string): boolean {
  try {
    parseRequestURI(s);
    return true;
  } catch {
    return false;
  }
}

export function registerUrlLibrary(env: Environment): void {
  env.registerType(URL_TYPE, CelURL);
  env.registerOperator(`${URL_TYPE} == ${URL_TYPE}`, (a: CelURL, b: CelURL) => a.equals(b));
  env.registerFunction(`url(string): ${URL_TYPE}`, toURL);
  env.registerFunction("isURL(string): bool", isURL);
  env.registerFunction(`${URL_TYPE}.getScheme(): string`, (u: CelURL) => u.parsed.scheme);
  env.registerFunction(`${URL_TYPE}.getHost(): string`, (u: CelURL) => u.parsed.host);
  env.registerFunction(`${URL_TYPE}.getHostname(): string`, (u: CelURL) => hostname(u.parsed));
  env.registerFunction(`${URL_TYPE}.getPort(): string`, (u: CelURL) => port(u.parsed));
  env.registerFunction(`${URL_TYPE}.getEscapedPath(): string`, (u: CelURL) => escapedPath(u.parsed));
  env.registerFunction(`${URL_TYPE}.getQuery(): map<string, list<string>>`, (u: CelURL) => query(u.parsed));
}
