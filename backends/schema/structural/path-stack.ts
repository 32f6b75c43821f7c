// Where a walk is inside a value, kept as a reusable stack so that no path string is built unless
// an error or an unknown field needs one. Upstream spells the same position three ways:
//   dotted:  pruning's unknown-field paths      spec.map.key, spec.list[0]
//   openapi: the schema validator's names       spec.map.key (a root map key reads ".key")
//   field:   field.Path (metadata, list types)  spec.map[key], spec.list[0]

export const PROPERTY = 0;
export const MAP_KEY = 1;
export const INDEX = 2;

export class PathStack {
  private readonly kinds: number[] = [];
  private readonly keys: (string | number)[] = [];
  depth = 0;

  push(kind: number, key: string | number): void {
    this.kinds[this.depth] = kind;
    this.keys[this.depth] = key;
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

  /** The schema validator's name for the current value (its messages quote it). */
  openapi(): string {
    let out = "";
    for (let i = 0; i < this.depth; i++) {
      const key = this.keys[i];
      const kind = this.kinds[i];
      if (kind === INDEX) out += `[${key}]`;
      else if (kind === MAP_KEY) out += `.${key}`;
      else out = out === "" ? String(key) : `${out}.${key}`;
    }
    return out;
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

/**
 * The field of an error the schema validator reports under `name`: upstream drops one leading
 * dot and appends the name as one child of the base path; an empty name (or ".") is the base.
 */
export function validatorField(base: string, name: string): string {
  if (name === "" || name === ".") return base;
  return childField(base, name.startsWith(".") ? name.slice(1) : name);
}
