// Where a walk is inside a value, kept as a reusable stack so that no path string is built unless
// an error or an unknown field needs one. Upstream spells the same position three ways:
//   dotted:  pruning's unknown-field paths      spec.map.key, spec.list[0]
//   openapi: the schema validator's names       spec.map.key (a root map key reads ".key")
//   field:   field.Path (metadata, list types)  spec.map[key], spec.list[0]

import { goQuote } from "./go-text.ts";

export const PROPERTY = 0;
export const MAP_KEY = 1;
export const INDEX = 2;

export class PathStack {
  private readonly kinds: number[] = [];
  private readonly keys: (string | number)[] = [];
  /** Each element's text in quoted(), kept until the element is popped. */
  private readonly quotedPieces: (string | undefined)[] = [];
  depth = 0;

  push(kind: number, key: string | number): void {
    this.kinds[this.depth] = kind;
    this.keys[this.depth] = key;
    this.quotedPieces[this.depth] = undefined;
    this.depth++;
  }

  pop(): void {
    this.depth--;
  }

  /** Pruning's spelling: keys joined by dots, indices in brackets. */
  dotted(): string {
    let out = "";
    for (let i = 0; i < this.depth; i++) {
      const key = this.keys[i];
      if (this.kinds[i] === INDEX) out += `[${key}]`;
      else out = out === "" ? String(key) : `${out}.${key}`;
    }
    return out;
  }

  /**
   * The schema validator's name for the current value (its messages quote it); `trim` drops one
   * leading "." as error fields do. The text is only concatenated, never read: reading a string
   * built around a megabyte-long map key copies it whole, and that for every error below the key.
   */
  openapi(trim = false): string {
    let out = "";
    let empty = true; // the untrimmed name is still ""
    for (let i = 0; i < this.depth; i++) {
      const key = String(this.keys[i]);
      const kind = this.kinds[i];
      if (kind === INDEX) out += `[${key}]`;
      else if (kind === MAP_KEY) out += trim && empty ? key : `.${key}`;
      else if (empty) out = trim && key.startsWith(".") ? key.slice(1) : key;
      else out += `.${key}`;
      empty &&= kind === PROPERTY && key === "";
    }
    return out;
  }

  /**
   * Go's %q of openapi(), from each element's escaped text: the errors of many values below one
   * long key escape that key once, and their names are only concatenated (see openapi).
   */
  quoted(): string {
    let out = '"';
    let empty = true;
    for (let i = 0; i < this.depth; i++) {
      const key = String(this.keys[i]);
      const kind = this.kinds[i];
      let piece = this.quotedPieces[i];
      if (piece === undefined) {
        const inner = goQuote(key).slice(1, -1);
        piece = kind === INDEX ? `[${inner}]` : kind === MAP_KEY || !empty ? `.${inner}` : inner;
        this.quotedPieces[i] = piece;
      }
      out += piece;
      empty &&= kind === PROPERTY && key === "";
    }
    return `${out}"`;
  }

  /** field.Path's spelling below `base`. */
  field(base: string): string {
    let out = base;
    for (let i = 0; i < this.depth; i++) {
      const key = this.keys[i];
      const kind = this.kinds[i];
      if (kind === PROPERTY) out = out === "" ? String(key) : `${out}.${key}`;
      else out += `[${key}]`;
    }
    return out;
  }
}

/** field.Path's child: `base.name`, or `name` at the root. */
export function childField(base: string, name: string): string {
  return base === "" ? name : `${base}.${name}`;
}
