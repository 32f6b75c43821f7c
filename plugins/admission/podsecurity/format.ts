// Upstream's wording helpers for check details.

/** `"a", "b"`. */
export function joinQuote(items: readonly string[]): string {
  return items.length === 0 ? "" : `"${items.join('", "')}"`;
}

export function pluralize(singular: string, plural: string, count: number): string {
  return count === 1 ? singular : plural;
}

/** A sorted, de-duplicated list (Go's sets.String List()). */
export function sortedSet(items: Iterable<string>): string[] {
  return [...new Set(items)].sort(byCodeUnit);
}

export function byCodeUnit(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Go's %q for ordinary strings. */
export function quote(value: string): string {
  return JSON.stringify(value);
}

/** `containers "a", "b"`. */
export function containersPhrase(names: readonly string[]): string {
  return `${pluralize("container", "containers", names.length)} ${joinQuote(names)}`;
}
