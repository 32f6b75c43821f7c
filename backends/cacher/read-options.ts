// The resourceVersion tables of the spec (get, list, watch) turned into one decision per
// request. Invalid combinations are InvalidRequestError (HTTP 400, as the spec's error table
// says) with upstream's wording.
import type { Revision } from "../contract/index.ts";
import { type ContinuePosition, decodeContinue } from "./continue-token.ts";
import { InvalidRequestError } from "./errors.ts";

export type ResourceVersionMatch = "Exact" | "NotOlderThan";

/** How a read picks its snapshot. */
export type ReadMode =
  | { readonly kind: "mostRecent" }
  | { readonly kind: "any" }
  | { readonly kind: "notOlderThan"; readonly revision: Revision }
  | { readonly kind: "exact"; readonly revision: Revision }
  | { readonly kind: "continue"; readonly position: ContinuePosition };

/** A parsed `resourceVersion`: `undefined` when unset or empty. */
export function parseResourceVersion(value: string | undefined): Revision | undefined {
  if (value === undefined || value === "") return undefined;
  if (!/^[0-9]{1,16}$/.test(value) || !Number.isSafeInteger(Number(value))) {
    throw new InvalidRequestError(
      `invalid resource version: resourceVersion: Invalid value: "${value}": must be a non-negative decimal integer`,
    );
  }
  return Number(value);
}

const forbidden = (field: string, why: string) => new InvalidRequestError(`${field}: Forbidden: ${why}`);
const unsupported = (field: string, value: string, allowed: string[]) =>
  new InvalidRequestError(
    `${field}: Unsupported value: "${value}": supported values: ${allowed.map((a) => `"${a}"`).join(", ")}`,
  );

/** get: unset is most recent, `0` is any, anything else is not older than. */
export function getMode(resourceVersion: string | undefined): ReadMode {
  const rv = parseResourceVersion(resourceVersion);
  if (rv === undefined) return { kind: "mostRecent" };
  if (rv === 0) return { kind: "any" };
  return { kind: "notOlderThan", revision: rv };
}

export interface ListModeRequest {
  readonly resourceVersion?: string | undefined;
  readonly resourceVersionMatch?: string | undefined;
  readonly limit?: number | undefined;
  readonly continue?: string | undefined;
}

export function listMode(req: ListModeRequest): ReadMode {
  const rv = parseResourceVersion(req.resourceVersion);
  const match = req.resourceVersionMatch || undefined;
  const paged = req.limit !== undefined && req.limit > 0;
  if (match !== undefined) {
    if (match !== "Exact" && match !== "NotOlderThan") {
      throw unsupported("resourceVersionMatch", match, ["Exact", "NotOlderThan", ""]);
    }
    if (rv === undefined) {
      throw forbidden(
        "resourceVersionMatch",
        "resourceVersionMatch is forbidden unless resourceVersion is provided",
      );
    }
    if (req.continue) {
      throw forbidden("resourceVersionMatch", "resourceVersionMatch is forbidden when continue is provided");
    }
    if (match === "Exact") {
      if (rv === 0) {
        throw forbidden(
          "resourceVersionMatch",
          'resourceVersionMatch "exact" is forbidden for resourceVersion "0"',
        );
      }
      return { kind: "exact", revision: rv };
    }
    return rv === 0 ? { kind: "any" } : { kind: "notOlderThan", revision: rv };
  }
  if (req.continue) {
    // A resourceVersion of 0 next to a continue token is tolerated and ignored.
    if (rv !== undefined && rv !== 0) {
      throw new InvalidRequestError("specifying resource version is not allowed when using continue");
    }
    return { kind: "continue", position: decodeContinue(req.continue) };
  }
  if (rv === undefined) return { kind: "mostRecent" };
  if (rv === 0) return { kind: "any" };
  return paged ? { kind: "exact", revision: rv } : { kind: "notOlderThan", revision: rv };
}

export interface WatchModeRequest {
  readonly resourceVersion?: string | undefined;
  readonly resourceVersionMatch?: string | undefined;
  readonly sendInitialEvents?: boolean | undefined;
  readonly continue?: string | undefined;
}

/** How a watch starts: from which state, and whether it first sends that state as ADDED events. */
export interface WatchStart {
  /** `after`: only changes after `revision`; otherwise the snapshot to start from. */
  readonly from: ReadMode | { readonly kind: "after"; readonly revision: Revision };
  readonly initialEvents: boolean;
  /** End the initial events with a BOOKMARK marked as their end. */
  readonly initialEventsEndBookmark: boolean;
}

export function watchStart(req: WatchModeRequest, watchListEnabled: boolean): WatchStart {
  const rv = parseResourceVersion(req.resourceVersion);
  const match = req.resourceVersionMatch || undefined;
  if (req.sendInitialEvents !== undefined) {
    if (match !== "NotOlderThan") {
      throw forbidden(
        "resourceVersionMatch",
        "sendInitialEvents requires setting resourceVersionMatch to NotOlderThan",
      );
    }
    if (!watchListEnabled) {
      throw forbidden(
        "sendInitialEvents",
        "sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled",
      );
    }
  }
  if (match !== undefined) {
    if (req.sendInitialEvents === undefined) {
      throw forbidden(
        "resourceVersionMatch",
        "resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided",
      );
    }
    if (match !== "NotOlderThan") throw unsupported("resourceVersionMatch", match, ["NotOlderThan"]);
    if (req.continue) {
      throw forbidden("resourceVersionMatch", "resourceVersionMatch is forbidden when continue is provided");
    }
  }
  if (req.sendInitialEvents === true) {
    const from: ReadMode =
      rv === undefined
        ? { kind: "mostRecent" }
        : rv === 0
          ? { kind: "any" }
          : { kind: "notOlderThan", revision: rv };
    return { from, initialEvents: true, initialEventsEndBookmark: true };
  }
  if (req.sendInitialEvents === false) {
    // Only changes: from the given revision, or from the newest state when none is given.
    if (rv === undefined || rv === 0) {
      return {
        from: rv === 0 ? { kind: "any" } : { kind: "mostRecent" },
        initialEvents: false,
        initialEventsEndBookmark: false,
      };
    }
    return { from: { kind: "after", revision: rv }, initialEvents: false, initialEventsEndBookmark: false };
  }
  if (rv === undefined)
    return { from: { kind: "mostRecent" }, initialEvents: true, initialEventsEndBookmark: false };
  if (rv === 0) return { from: { kind: "any" }, initialEvents: true, initialEventsEndBookmark: false };
  return { from: { kind: "after", revision: rv }, initialEvents: false, initialEventsEndBookmark: false };
}
