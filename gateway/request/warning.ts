// `Warning` header values for the texts gathered while serving a request (RFC 7234 code 299,
// no agent), the form clients such as kubectl print.
export function warningHeader(warnings: readonly string[]): string[] {
  return warnings.map((w) => `299 - ${JSON.stringify(w)}`);
}
