// Typed failures of the field manager; gateway/request/api-error.ts maps them to Status.
import { clip, ERROR_LIMITS } from "../../backends/registry/index.ts";
import { formatPath, type Path } from "./field-set.ts";

export interface Conflict {
  /** The other manager's identity (managed-fields.ts `identity`). */
  readonly manager: string;
  readonly path: Path;
}

/**
 * An apply that would change fields another manager owns, without `force`: a 409. Upstream lists
 * every conflict; the answer here lists them within ERROR_LIMITS (a conflict's path can be as
 * long as the keys above it, so thousands of fields below one long key would multiply it).
 */
export class ApplyConflictError extends Error {
  readonly conflicts: readonly Conflict[];
  /** How many conflicts the message and causes list. */
  readonly #listed: number;

  constructor(conflicts: readonly Conflict[]) {
    const { message, listed } = conflictMessage(conflicts);
    super(message);
    this.name = "ApplyConflictError";
    this.conflicts = conflicts;
    this.#listed = listed;
  }

  /** One cause per listed conflicting field, as upstream lists them. */
  causes(): { reason: string; message: string; field: string }[] {
    return this.conflicts.slice(0, this.#listed).map((c) => ({
      reason: "FieldManagerConflict",
      message: `conflict with ${describeManager(c.manager)}`,
      field: clip(formatPath(c.path)),
    }));
  }
}

/** A request the field manager refuses (bad apply body, wrong kind, ...): a 400. */
export class FieldManagerError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "FieldManagerError";
  }
}

/** How a manager is named in conflict messages: `"kubectl" using apps/v1` for updaters. */
export function describeManager(id: string): string {
  let entry: { manager?: string; operation?: string; apiVersion?: string; subresource?: string };
  try {
    entry = JSON.parse(id) as typeof entry;
  } catch {
    return JSON.stringify(id);
  }
  let text = JSON.stringify(entry.manager ?? "");
  if (entry.subresource) text += ` with subresource ${JSON.stringify(entry.subresource)}`;
  if (entry.operation === "Update") text += ` using ${entry.apiVersion ?? ""}`;
  return text;
}

/**
 * Upstream's text: one conflict inline, more grouped by manager (managers sorted). Paths are
 * grouped in one pass; the listing stops at ERROR_LIMITS.causes paths or listChars characters.
 */
function conflictMessage(conflicts: readonly Conflict[]): { message: string; listed: number } {
  if (conflicts.length === 1) {
    const [c] = conflicts as [Conflict];
    const text = `conflict with ${describeManager(c.manager)}: ${clip(formatPath(c.path))}`;
    return { message: `Apply failed with 1 conflict: ${text}`, listed: 1 };
  }
  const byManager = new Map<string, Path[]>();
  for (const c of conflicts) {
    const paths = byManager.get(c.manager);
    if (paths) paths.push(c.path);
    else byManager.set(c.manager, [c.path]);
  }
  const lines: string[] = [];
  let listed = 0;
  let size = 0;
  const full = () => listed === ERROR_LIMITS.causes || size > ERROR_LIMITS.listChars;
  for (const manager of [...byManager.keys()].sort()) {
    if (full()) break;
    lines.push(`conflicts with ${describeManager(manager)}:`);
    for (const p of byManager.get(manager) ?? []) {
      if (full()) break;
      const line = `- ${clip(formatPath(p))}`;
      lines.push(line);
      listed++;
      size += line.length + 1;
    }
  }
  if (listed < conflicts.length) lines.push(`... (${conflicts.length - listed} more conflicts)`);
  return { message: `Apply failed with ${conflicts.length} conflicts: ${lines.join("\n")}`, listed };
}
