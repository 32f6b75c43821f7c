// The cache's entries in key order, as a chunked sorted array: blocks of at most MAX_BLOCK
// entries, with each block's last key and starting position kept in two small arrays. Entries are
// held themselves, not only their keys, so a range read walks the blocks without a hash lookup per
// key (at 100k entries a Map lookup of a random key costs several times what it does at 1k).
// Positioning is two binary searches; insert and remove move at most one block's entries plus one
// number per block, so their cost stays flat from a thousand keys to a hundred thousand (a single
// array moved every key after the insertion point, and reallocated its backing store as it grew).
// `at` remembers the block of the last access, so a scan by increasing index costs O(1) per entry.

/** Blocks split above this size; `reset` fills them to half of it. */
const MAX_BLOCK = 1024;

/** What the index orders: anything with a key. */
export interface Keyed {
  readonly key: string;
}

export class SortedKeys<T extends Keyed = Keyed> {
  readonly #maxBlock: number;
  /** A block smaller than this after a remove is merged into a neighbour. */
  readonly #minBlock: number;
  /** Non-empty blocks of entries, in order; no block is empty, so `[]` means no entries. */
  #blocks: T[][] = [];
  /** The last (greatest) key of each block. */
  #maxes: string[] = [];
  /** The index of each block's first key. */
  #starts: number[] = [];
  #size = 0;
  /** The block of the last `at`. */
  #finger = 0;

  /** `maxBlock` (at least 2) is for tests; the default suits 10-1,000,000 keys. */
  constructor(options: { maxBlock?: number } = {}) {
    this.#maxBlock = Math.max(2, options.maxBlock ?? MAX_BLOCK);
    this.#minBlock = this.#maxBlock >>> 3;
  }

  get size(): number {
    return this.#size;
  }

  at(index: number): T | undefined {
    const blocks = this.#blocks;
    const starts = this.#starts;
    let b = this.#finger;
    if (b < blocks.length) {
      const block = blocks[b] as T[];
      const rel = index - (starts[b] as number);
      if (rel >= 0) {
        if (rel < block.length) return block[rel];
        // The next block's first key: where a forward scan goes after this block.
        if (rel === block.length && b + 1 < blocks.length) {
          this.#finger = b + 1;
          return (blocks[b + 1] as T[])[0];
        }
      }
    }
    if (!(index >= 0 && index < this.#size && Number.isInteger(index))) return undefined;
    b = this.#blockAt(index);
    this.#finger = b;
    return (blocks[b] as T[])[index - (starts[b] as number)];
  }

  /** Replace the contents with entries already sorted by key (and with distinct keys). */
  reset(sorted: readonly T[]): void {
    const blocks: T[][] = [];
    const maxes: string[] = [];
    const starts: number[] = [];
    const fill = Math.max(1, this.#maxBlock >>> 1);
    for (let i = 0; i < sorted.length; i += fill) {
      const block = sorted.slice(i, i + fill);
      blocks.push(block);
      maxes.push((block[block.length - 1] as T).key);
      starts.push(i);
    }
    this.#blocks = blocks;
    this.#maxes = maxes;
    this.#starts = starts;
    this.#size = sorted.length;
    this.#finger = 0;
  }

  /** Index of the first key >= `key`. */
  lowerBound(key: string): number {
    const b = this.#firstBlockWithMaxAtLeast(key);
    if (b === this.#blocks.length) return this.#size;
    return (this.#starts[b] as number) + lowerBoundIn(this.#blocks[b] as T[], key);
  }

  /** Index of the first key > `key`. */
  upperBound(key: string): number {
    // The first block whose last key is > `key`.
    const maxes = this.#maxes;
    let lo = 0;
    let hi = maxes.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((maxes[mid] as string) <= key) lo = mid + 1;
      else hi = mid;
    }
    if (lo === maxes.length) return this.#size;
    const block = this.#blocks[lo] as T[];
    let l = 0;
    let h = block.length;
    while (l < h) {
      const mid = (l + h) >>> 1;
      if ((block[mid] as T).key <= key) l = mid + 1;
      else h = mid;
    }
    return (this.#starts[lo] as number) + l;
  }

  has(key: string): boolean {
    const b = this.#firstBlockWithMaxAtLeast(key);
    if (b === this.#blocks.length) return false;
    const block = this.#blocks[b] as T[];
    return block[lowerBoundIn(block, key)]?.key === key;
  }

  /** Put `entry` in place of the one with its key; false (and nothing changed) when there is none. */
  replace(entry: T): boolean {
    const key = entry.key;
    const b = this.#firstBlockWithMaxAtLeast(key);
    if (b === this.#blocks.length) return false;
    const block = this.#blocks[b] as T[];
    const at = lowerBoundIn(block, key);
    if (block[at]?.key !== key) return false;
    block[at] = entry;
    return true;
  }

  /** Add `entry`; false (and nothing changed) when its key is already present. */
  insert(entry: T): boolean {
    const key = entry.key;
    const blocks = this.#blocks;
    if (blocks.length === 0) {
      blocks.push([entry]);
      this.#maxes.push(key);
      this.#starts.push(0);
      this.#size = 1;
      return true;
    }
    let b = this.#firstBlockWithMaxAtLeast(key);
    // Greater than every key: append to the last block.
    if (b === blocks.length) b--;
    const block = blocks[b] as T[];
    const at = lowerBoundIn(block, key);
    if (block[at]?.key === key) return false;
    if (at === block.length) {
      block.push(entry);
      this.#maxes[b] = key;
    } else {
      block.splice(at, 0, entry);
    }
    this.#size++;
    this.#shiftStarts(b + 1, 1);
    if (block.length > this.#maxBlock) this.#split(b);
    return true;
  }

  /** Drop `key`; false when it was absent. */
  remove(key: string): boolean {
    const b = this.#firstBlockWithMaxAtLeast(key);
    const blocks = this.#blocks;
    if (b === blocks.length) return false;
    const block = blocks[b] as T[];
    const at = lowerBoundIn(block, key);
    if (block[at]?.key !== key) return false;
    if (at === block.length - 1) {
      block.pop();
      if (block.length > 0) this.#maxes[b] = (block[at - 1] as T).key;
    } else {
      block.splice(at, 1);
    }
    this.#size--;
    this.#shiftStarts(b + 1, -1);
    if (block.length === 0) this.#dropBlock(b);
    else if (block.length < this.#minBlock && blocks.length > 1) this.#merge(b);
    return true;
  }

  /** The first block whose last key is >= `key`; the block count when there is none. */
  #firstBlockWithMaxAtLeast(key: string): number {
    const maxes = this.#maxes;
    let lo = 0;
    let hi = maxes.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((maxes[mid] as string) < key) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** The block holding position `index` (0 <= index < size). */
  #blockAt(index: number): number {
    const starts = this.#starts;
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if ((starts[mid] as number) <= index) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  #shiftStarts(from: number, by: number): void {
    const starts = this.#starts;
    for (let i = from; i < starts.length; i++) starts[i] = (starts[i] as number) + by;
  }

  #split(b: number): void {
    const block = this.#blocks[b] as T[];
    const tail = block.splice(block.length >>> 1);
    this.#blocks.splice(b + 1, 0, tail);
    this.#maxes.splice(b + 1, 0, this.#maxes[b] as string);
    this.#maxes[b] = (block[block.length - 1] as T).key;
    this.#starts.splice(b + 1, 0, (this.#starts[b] as number) + block.length);
  }

  #dropBlock(b: number): void {
    this.#blocks.splice(b, 1);
    this.#maxes.splice(b, 1);
    this.#starts.splice(b, 1);
  }

  /** Merge small block `b` with a neighbour, splitting again if the result is too large. */
  #merge(b: number): void {
    const left = b + 1 < this.#blocks.length ? b : b - 1;
    const first = this.#blocks[left] as T[];
    const second = this.#blocks[left + 1] as T[];
    for (const entry of second) first.push(entry);
    this.#maxes[left] = this.#maxes[left + 1] as string;
    this.#dropBlock(left + 1);
    if (first.length > this.#maxBlock) this.#split(left);
  }
}

function lowerBoundIn(block: readonly Keyed[], key: string): number {
  let lo = 0;
  let hi = block.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((block[mid] as Keyed).key < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The smallest string greater than every string that starts with `prefix`. */
export function prefixEnd(prefix: string): string {
  if (prefix === "") return "\uffff";
  return prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1);
}
