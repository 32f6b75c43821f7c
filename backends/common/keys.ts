// Key ordering shared by every store and the cacher. Keys are ASCII paths
// (`/<group>/<resource>/<namespace>/<name>`), where code-unit order equals byte order.
export function compareKeys(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
