// Test support: each kind's expected columns (name, type, priority) and row, checked at once.
import assert from "node:assert/strict";
import { it } from "node:test";
import type { JsonObject } from "../../common/json.ts";
import { naming } from "../../naming/naming.ts";
import type { TableColumn } from "../../schema/resource-schema.ts";
import { builtinColumns } from "./index.ts";

const HOUR = 3600_000;
export const DAY = 24 * HOUR;

/** An RFC 3339 time `ms` ago (ages are coarse enough not to change while a test runs). */
export function ago(ms: number): string {
  return new Date(Date.now() - ms).toISOString().replace(/\.\d+Z$/, "Z");
}

/** Created 26 hours ago: the Age cell reads "26h". */
export const CREATED = ago(26 * HOUR);

export type Expected = readonly [name: string, type: TableColumn["type"], priority: number, cell: unknown];

export interface Case {
  readonly name: string;
  readonly group: string;
  readonly plural: string;
  readonly object: JsonObject;
  readonly row: readonly Expected[];
}

export const columnsOf = builtinColumns(naming("kubernetes"));

/** The columns of a kind, failing the test when there are none. */
export function mustColumns(group: string, plural: string): readonly TableColumn[] {
  const cols = columnsOf(group, plural);
  assert.ok(cols, `no columns for ${group}/${plural}`);
  return cols;
}

export function runCases(cases: readonly Case[]): void {
  for (const c of cases) {
    it(`${c.plural}: ${c.name}`, () => {
      const cols = mustColumns(c.group, c.plural);
      assert.deepEqual(
        cols.map((col) => [col.name, col.type, col.priority, col.cell(c.object)]),
        c.row.map((e) => [...e]),
      );
      for (const col of cols) assert.ok(col.description.length > 0, `${col.name} has a description`);
    });
  }
}

/** Every column's cell of an empty object and of junk: no throwing. */
export function assertTolerant(group: string, plural: string): void {
  const junk: JsonObject[] = [
    {},
    { metadata: 7, spec: "x", status: [] },
    { spec: { template: { spec: { containers: [null, 3] } }, selector: { matchExpressions: [null] } } },
  ];
  for (const o of junk) for (const col of mustColumns(group, plural)) col.cell(o);
}
