import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { prefixEnd, SortedKeys } from "./sorted-keys.ts";

/** xorshift32: the same sequence on every run, so a failure can be replayed. */
function rng(seed: number): (n: number) => number {
  let x = seed >>> 0 || 1;
  return (n) => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) % n;
  };
}

/** Keys from a small alphabet, so random keys collide and share prefixes. */
function randomKey(pick: (n: number) => number, space: number): string {
  return `/k/${String(pick(space)).padStart(5, "0")}${pick(4) === 0 ? "/x" : ""}`;
}

/** The index over bare keys, as most tests drive it. */
class Keys {
  readonly index: SortedKeys;
  constructor(options: { maxBlock?: number | undefined } = {}) {
    this.index = new SortedKeys(options.maxBlock === undefined ? {} : { maxBlock: options.maxBlock });
  }
  get size(): number {
    return this.index.size;
  }
  at(i: number): string | undefined {
    return this.index.at(i)?.key;
  }
  reset(keys: readonly string[]): void {
    this.index.reset(keys.map((key) => ({ key })));
  }
  insert(key: string): boolean {
    return this.index.insert({ key });
  }
  remove(key: string): boolean {
    return this.index.remove(key);
  }
  has(key: string): boolean {
    return this.index.has(key);
  }
  lowerBound(key: string): number {
    return this.index.lowerBound(key);
  }
  upperBound(key: string): number {
    return this.index.upperBound(key);
  }
}

/** The reference: a plain sorted array with linear-time operations. */
class Reference {
  keys: string[] = [];
  lowerBound(key: string): number {
    const i = this.keys.findIndex((k) => k >= key);
    return i === -1 ? this.keys.length : i;
  }
  upperBound(key: string): number {
    const i = this.keys.findIndex((k) => k > key);
    return i === -1 ? this.keys.length : i;
  }
  insert(key: string): boolean {
    const at = this.lowerBound(key);
    if (this.keys[at] === key) return false;
    this.keys.splice(at, 0, key);
    return true;
  }
  remove(key: string): boolean {
    const at = this.lowerBound(key);
    if (this.keys[at] !== key) return false;
    this.keys.splice(at, 1);
    return true;
  }
}

function contents(s: Keys): string[] {
  const out: string[] = [];
  for (let i = 0; i < s.size; i++) out.push(s.at(i) as string);
  return out;
}

/** Every observable of `s` against the reference. */
function assertSame(s: Keys, ref: Reference, probes: string[], context: string): void {
  assert.equal(s.size, ref.keys.length, `${context}: size`);
  assert.deepEqual(contents(s), ref.keys, `${context}: forward scan`);
  for (const probe of probes) {
    assert.equal(s.lowerBound(probe), ref.lowerBound(probe), `${context}: lowerBound(${probe})`);
    assert.equal(s.upperBound(probe), ref.upperBound(probe), `${context}: upperBound(${probe})`);
    assert.equal(s.has(probe), ref.keys.includes(probe), `${context}: has(${probe})`);
  }
}

const BLOCK_SIZES = [2, 3, 4, 16, 64, undefined];

describe("SortedKeys", () => {
  it("is empty at first and after reset([])", () => {
    for (const maxBlock of BLOCK_SIZES) {
      const s = new Keys({ maxBlock });
      assert.equal(s.size, 0);
      assert.equal(s.at(0), undefined);
      assert.equal(s.lowerBound("a"), 0);
      assert.equal(s.upperBound("a"), 0);
      assert.equal(s.remove("a"), false);
      s.insert("a");
      s.reset([]);
      assert.equal(s.size, 0);
      assert.equal(s.at(0), undefined);
      assert.equal(s.lowerBound(""), 0);
    }
  });

  it("keeps order, ignores duplicates and reports what changed", () => {
    const s = new Keys({ maxBlock: 2 });
    for (const k of ["d", "b", "f", "a", "c", "e", "g", "b", "g", "a"]) s.insert(k);
    assert.deepEqual(contents(s), ["a", "b", "c", "d", "e", "f", "g"]);
    assert.equal(s.insert("c"), false);
    assert.equal(s.insert("cc"), true);
    assert.equal(s.remove("cc"), true);
    assert.equal(s.remove("cc"), false);
    assert.equal(s.remove("zz"), false);
    assert.equal(s.remove(""), false);
    assert.equal(s.lowerBound("c"), 2);
    assert.equal(s.upperBound("c"), 3);
    assert.equal(s.lowerBound("cc"), 3);
    assert.equal(s.upperBound("cc"), 3);
    assert.equal(s.lowerBound(""), 0);
    assert.equal(s.upperBound("z"), 7);
    assert.equal(s.lowerBound("z"), 7);
    for (const k of ["a", "g", "d", "b", "f", "c", "e"]) assert.equal(s.remove(k), true);
    assert.equal(s.size, 0);
    assert.deepEqual(contents(s), []);
    s.insert("x");
    assert.deepEqual(contents(s), ["x"]);
  });

  it("answers out-of-range and non-integer positions with undefined", () => {
    const s = new Keys({ maxBlock: 4 });
    s.reset(["a", "b", "c", "d", "e", "f", "g", "h", "i"]);
    assert.equal(s.at(-1), undefined);
    assert.equal(s.at(9), undefined);
    assert.equal(s.at(100), undefined);
    assert.equal(s.at(1.5), undefined);
    assert.equal(s.at(Number.NaN), undefined);
    assert.equal(s.at(8), "i");
    assert.equal(s.at(0), "a");
  });

  it("serves positions in any order: forward, backward, random", () => {
    for (const maxBlock of BLOCK_SIZES) {
      const keys = Array.from({ length: 3000 }, (_, i) => `/k/${String(i).padStart(5, "0")}`);
      const s = new Keys({ maxBlock });
      s.reset(keys.slice());
      for (let i = keys.length - 1; i >= 0; i--) assert.equal(s.at(i), keys[i]);
      const pick = rng(99);
      for (let n = 0; n < 2000; n++) {
        const i = pick(keys.length + 10) - 5;
        assert.equal(s.at(i), keys[i], `at(${i}) with maxBlock ${maxBlock}`);
      }
      assert.deepEqual(contents(s), keys);
    }
  });

  it("does not keep the array given to reset", () => {
    const keys = ["a", "b", "c"];
    const s = new Keys();
    s.reset(keys);
    s.insert("bb");
    s.remove("a");
    assert.deepEqual(keys, ["a", "b", "c"]);
    assert.deepEqual(contents(s), ["b", "bb", "c"]);
  });

  for (const maxBlock of BLOCK_SIZES) {
    it(`matches a sorted array under random inserts, removes and resets (maxBlock ${maxBlock ?? "default"})`, () => {
      const pick = rng(1234 + (maxBlock ?? 0));
      const s = new Keys({ maxBlock });
      const ref = new Reference();
      // Phases: grow (mostly inserts), churn, shrink (mostly removes), with a reset in between.
      const phases = [
        { ops: 3000, insertPct: 85, space: 4000 },
        { ops: 3000, insertPct: 50, space: 4000 },
        { ops: 4000, insertPct: 10, space: 4000 },
        { ops: 1500, insertPct: 70, space: 300 },
      ];
      for (const [p, phase] of phases.entries()) {
        if (p === 3) {
          // Reset to a fresh sorted set, then keep mutating it.
          const fresh = [...new Set(Array.from({ length: 700 }, () => randomKey(pick, 4000)))].sort();
          s.reset(fresh);
          ref.keys = fresh.slice();
          assertSame(s, ref, [], "after reset");
        }
        for (let op = 0; op < phase.ops; op++) {
          const key =
            // Half the removes aim at present keys, so removes do not mostly miss.
            pick(100) >= phase.insertPct && ref.keys.length > 0 && pick(2) === 0
              ? (ref.keys[pick(ref.keys.length)] as string)
              : randomKey(pick, phase.space);
          if (pick(100) < phase.insertPct) {
            assert.equal(s.insert(key), ref.insert(key), `insert(${key})`);
          } else {
            assert.equal(s.remove(key), ref.remove(key), `remove(${key})`);
          }
          // Spot checks every step (a position near the change, and bounds of the key itself).
          assert.equal(s.size, ref.keys.length);
          const i = ref.lowerBound(key);
          assert.equal(s.lowerBound(key), i, `lowerBound(${key}) after op ${op}`);
          assert.equal(s.upperBound(key), ref.upperBound(key), `upperBound(${key}) after op ${op}`);
          for (const j of [i - 1, i, i + 1, pick(ref.keys.length + 1)]) {
            assert.equal(s.at(j), ref.keys[j], `at(${j}) after op ${op}`);
          }
          if (op % 500 === 0) {
            const probes = Array.from({ length: 50 }, () => randomKey(pick, phase.space));
            probes.push("", "/k/", "/k0", "\uffff", ...ref.keys.slice(0, 3), ...ref.keys.slice(-3));
            assertSame(s, ref, probes, `phase ${p} op ${op}`);
          }
        }
        assertSame(s, ref, ref.keys.slice(0, 200), `end of phase ${p}`);
      }
      // Drain to empty and refill.
      for (const key of ref.keys.slice()) assert.equal(s.remove(key), ref.remove(key));
      assertSame(s, ref, ["", "a"], "drained");
      for (const key of ["/k/b", "/k/a", "/k/c"]) s.insert(key);
      assert.deepEqual(contents(s), ["/k/a", "/k/b", "/k/c"]);
    });
  }

  it("handles ascending and descending bulk inserts (appends and prepends)", () => {
    for (const maxBlock of BLOCK_SIZES) {
      const keys = Array.from({ length: 2500 }, (_, i) => `/k/${String(i).padStart(5, "0")}`);
      const up = new Keys({ maxBlock });
      for (const k of keys) up.insert(k);
      assert.deepEqual(contents(up), keys);
      const down = new Keys({ maxBlock });
      for (let i = keys.length - 1; i >= 0; i--) down.insert(keys[i] as string);
      assert.deepEqual(contents(down), keys);
      // Remove from the front, then from the back, checking positions as the blocks empty.
      for (let i = 0; i < 1000; i++) {
        assert.equal(down.remove(keys[i] as string), true);
        assert.equal(down.at(0), keys[i + 1]);
        assert.equal(down.lowerBound(keys[i] as string), 0);
      }
      for (let i = keys.length - 1; i >= 2000; i--) {
        assert.equal(down.remove(keys[i] as string), true);
        assert.equal(down.at(down.size - 1), keys[i - 1]);
        assert.equal(down.upperBound("\uffff"), down.size);
      }
      assert.deepEqual(contents(down), keys.slice(1000, 2000));
    }
  });

  it("holds the entries themselves and replaces one in place", () => {
    const s = new SortedKeys<{ key: string; v: number }>({ maxBlock: 2 });
    s.reset([
      { key: "a", v: 1 },
      { key: "c", v: 1 },
      { key: "e", v: 1 },
    ]);
    const d = { key: "d", v: 1 };
    assert.equal(s.insert(d), true);
    assert.equal(s.at(2), d, "the same object, not a copy");
    assert.equal(s.insert({ key: "d", v: 2 }), false, "insert leaves an existing key alone");
    assert.equal(s.at(2)?.v, 1);
    assert.equal(s.replace({ key: "d", v: 3 }), true);
    assert.equal(s.at(2)?.v, 3);
    assert.equal(s.size, 4);
    assert.equal(s.replace({ key: "b", v: 3 }), false, "replace adds nothing");
    assert.equal(s.replace({ key: "z", v: 3 }), false);
    assert.deepEqual(
      Array.from({ length: s.size }, (_, i) => `${s.at(i)?.key}${s.at(i)?.v}`),
      ["a1", "c1", "d3", "e1"],
    );
  });

  it("stays ordered through 200k random inserts and removes at 100k keys", () => {
    const n = 100_000;
    const keys = Array.from({ length: n }, (_, i) => `/k/${String(i * 2).padStart(7, "0")}`);
    const s = new Keys();
    s.reset(keys);
    const pick = rng(7);
    const present = new Set(keys);
    for (let i = 0; i < n; i++) {
      const key = `/k/${String(pick(n) * 2 + 1).padStart(7, "0")}`;
      assert.equal(s.insert(key), !present.has(key));
      present.add(key);
    }
    for (let i = 0; i < n; i++) {
      const key = `/k/${String(pick(n) * 2).padStart(7, "0")}`;
      assert.equal(s.remove(key), present.delete(key));
    }
    assert.equal(s.size, present.size);
    let prev = "";
    for (let i = 0; i < s.size; i++) {
      const k = s.at(i) as string;
      assert.ok(k > prev, `order at ${i}`);
      prev = k;
    }
  });
});

describe("prefixEnd", () => {
  it("is the least string above every string with the prefix", () => {
    assert.equal(prefixEnd("/a/"), "/a0");
    assert.equal(prefixEnd("/a/b"), "/a/c");
    assert.equal(prefixEnd(""), "\uffff");
    for (const k of ["/a/", "/a/x", "/a/\uffff"]) assert.ok(k < prefixEnd("/a/"));
    assert.ok("/a0" >= prefixEnd("/a/"));
  });
});
