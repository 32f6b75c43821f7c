// How Go's fmt prints decoded JSON values (%v and %T), for upstream messages that quote them.
import { goNumber } from "../schema/structural/go-text.ts";

/** Go's %v of a value decoded from JSON into interface{}. */
export function goValue(value: unknown): string {
  if (value === null || value === undefined) return "<nil>";
  if (typeof value === "number") return goNumber(value);
  if (typeof value === "string") return value;
  if (typeof value === "boolean") return String(value);
  if (Array.isArray(value)) return `[${value.map(goValue).join(" ")}]`;
  const o = value as Record<string, unknown>;
  return `map[${Object.keys(o)
    .sort()
    .map((k) => `${k}:${goValue(o[k])}`)
    .join(" ")}]`;
}

/** Go's %T of a value decoded from JSON into interface{}. */
export function goType(value: unknown): string {
  if (value === null || value === undefined) return "<nil>";
  if (typeof value === "number") return Number.isInteger(value) ? "int64" : "float64";
  if (typeof value === "string") return "string";
  if (typeof value === "boolean") return "bool";
  if (Array.isArray(value)) return "[]interface {}";
  return "map[string]interface {}";
}
