// Typed failures of the field manager; gateway/request/api-error.ts maps them to Status.
import { formatPath, type Path } from "./field-set.ts";

export interface Conflict {
  /** The other manager's identity (managed-fields.ts `identity`). */
  readonly manager: string;
  readonly path: Path;
}

/** An apply that would change fields another manager owns, without `force`: a 409. */
export class ApplyConflictError extends Error {
  readonly conflicts: readonly Conflict[];

  constructor(conflicts: readonly Conflict[]) {
    super(conflictMessage(conflicts));
    this.name = "ApplyConflictError";
    this.conflicts = conflicts;
  }

  /** One cause per conflicting field, as upstream lists them. */
  causes(): { reason: string; message: string; field: string }[] {
    return this.conflicts.map((c) => ({
      reason: "FieldManagerConflict",
      message: `conflict with ${describeManager(c.manager)}`,
      field: formatPath(c.path),
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

function conflictMessage(conflicts: readonly Conflict[]): string {
  if (conflicts.length === 1) {
    const [c] = conflicts as [Conflict];
    return `Apply failed with 1 conflict: conflict with ${describeManager(c.manager)}: ${formatPath(c.path)}`;
  }
  const byManager = new Map<string, Path[]>();
  for (const c of conflicts) byManager.set(c.manager, [...(byManager.get(c.manager) ?? []), c.path]);
  const lines: string[] = [];
  for (const manager of [...byManager.keys()].sort()) {
    lines.push(`conflicts with ${describeManager(manager)}:`);
    for (const p of byManager.get(manager) ?? []) lines.push(`- ${formatPath(p)}`);
  }
  return `Apply failed with ${conflicts.length} conflicts: ${lines.join("\n")}`;
}
