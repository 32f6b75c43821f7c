// Short human durations as kubectl tables show them ("45s", "5m30s", "3h", "4d5h", "2y10d"),
// with upstream's thresholds: about two to three significant figures.
import type { TableColumn } from "../schema/resource-schema.ts";

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/** Formats a duration given in milliseconds. Slightly negative (clock skew) counts as "0s". */
export function humanDuration(ms: number): string {
  const seconds = Math.trunc(ms / SECOND);
  if (seconds < -1) return "<invalid>";
  if (seconds < 0) return "0s";
  if (seconds < 60 * 2) return `${seconds}s`;
  const minutes = Math.trunc(ms / MINUTE);
  if (minutes < 10) {
    const s = seconds % 60;
    return s === 0 ? `${minutes}m` : `${minutes}m${s}s`;
  }
  if (minutes < 60 * 3) return `${minutes}m`;
  const hours = Math.trunc(ms / HOUR);
  if (hours < 8) {
    const m = minutes % 60;
    return m === 0 ? `${hours}h` : `${hours}h${m}m`;
  }
  if (hours < 48) return `${hours}h`;
  if (hours < 24 * 8) {
    const h = hours % 24;
    return h === 0 ? `${Math.trunc(hours / 24)}d` : `${Math.trunc(hours / 24)}d${h}h`;
  }
  if (hours < 24 * 365 * 2) return `${Math.trunc(hours / 24)}d`;
  if (hours < 24 * 365 * 8) {
    const days = Math.trunc(hours / 24);
    const dy = days % 365;
    return dy === 0 ? `${Math.trunc(days / 365)}y` : `${Math.trunc(days / 365)}y${dy}d`;
  }
  return `${Math.trunc(hours / 24 / 365)}y`;
}

/** The age of a timestamp (RFC 3339 text) at `now`, or `<unknown>` when there is none. */
export function timestampAge(timestamp: unknown, now: number = Date.now()): string {
  if (typeof timestamp !== "string" || timestamp === "") return "<unknown>";
  const t = Date.parse(timestamp);
  if (Number.isNaN(t)) return "<unknown>";
  return humanDuration(now - t);
}

/** The "Age" column: time since metadata.creationTimestamp. */
export function ageColumn(): TableColumn {
  return {
    name: "Age",
    type: "string",
    description: "Time since the object was created.",
    priority: 0,
    cell: (object) => {
      const meta = object.metadata;
      const created =
        typeof meta === "object" && meta !== null
          ? (meta as Record<string, unknown>).creationTimestamp
          : undefined;
      return timestampAge(created);
    },
  };
}
