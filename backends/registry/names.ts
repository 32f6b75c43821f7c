// Object name rules, with upstream's messages (clients show them verbatim).
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

export type NameRule = "dns-subdomain" | "dns-label" | "path-segment";

/** Problems with a name under a rule; empty when valid. */
export function validateObjectName(name: string, rule: NameRule): string[] {
  const problems: string[] = [];
  if (rule === "path-segment") {
    if (name === "." || name === "..") problems.push(`may not be '${name}'`);
    for (const bad of ["/", "%"]) if (name.includes(bad)) problems.push(`may not contain '${bad}'`);
    return problems;
  }
  if (rule === "dns-label") {
    if (name.length > 63) problems.push("must be no more than 63 characters");
    if (!DNS_LABEL.test(name)) {
      problems.push(
        "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
      );
    }
    return problems;
  }
  if (name.length > 253) problems.push("must be no more than 253 characters");
  if (!DNS_SUBDOMAIN.test(name)) {
    problems.push(
      "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
    );
  }
  return problems;
}
