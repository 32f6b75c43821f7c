// The parameters of each operation kind, as the reference server (1.27) declares them: the
// options objects of its handlers (CreateOptions, UpdateOptions, PatchOptions, DeleteOptions,
// ListOptions) become query parameters. Clients look some of them up by name: kubectl decides
// whether the server validates fields by finding `fieldValidation` on a kind's PATCH operation.
import type { Action, Parameter } from "./model.ts";

function query(name: string, type: Parameter["type"], description: string): Parameter {
  return { name, in: "query", type, description };
}

export const pretty = query("pretty", "string", "If 'true', then the output is pretty printed.");

export function namespaceParameter(): Parameter {
  return {
    name: "namespace",
    in: "path",
    type: "string",
    required: true,
    description: "object name and auth scope, such as for teams and projects",
  };
}

export function nameParameter(kind: string): Parameter {
  return { name: "name", in: "path", type: "string", required: true, description: `name of the ${kind}` };
}

const dryRun = query(
  "dryRun",
  "string",
  "When present, modifications are not persisted. The only valid value is All: all dry run stages are processed.",
);
const fieldManager = query(
  "fieldManager",
  "string",
  "A name for the actor making these changes: printable characters, at most 128 of them.",
);
const patchFieldManager = query(
  "fieldManager",
  "string",
  "A name for the actor making these changes: printable characters, at most 128 of them. Required for apply patches.",
);
const fieldValidation = query(
  "fieldValidation",
  "string",
  "How to treat unknown or duplicate fields in the body: Ignore (drop them silently), Warn (drop them with a warning per field; the default) or Strict (fail the request with a BadRequest listing them).",
);
const force = query(
  "force",
  "boolean",
  "Force an apply patch to take over fields other managers own. Must be unset for other patch types.",
);

const gracePeriodSeconds = query(
  "gracePeriodSeconds",
  "integer",
  "Seconds before the object is deleted; zero deletes immediately, unset uses the kind's default.",
);
const orphanDependents = query(
  "orphanDependents",
  "boolean",
  "Deprecated: use propagationPolicy. Whether dependents are orphaned.",
);
const propagationPolicy = query(
  "propagationPolicy",
  "string",
  "How garbage collection treats dependents: Orphan, Background or Foreground.",
);

const allowWatchBookmarks = query(
  "allowWatchBookmarks",
  "boolean",
  'Ask for watch events of type "BOOKMARK"; the server sends them at its discretion. Ignored unless watching.',
);
const continueToken = query(
  "continue",
  "string",
  "The continue token of a previous list call with the same parameters, to get the next page.",
);
const fieldSelector = query(
  "fieldSelector",
  "string",
  "A selector to restrict the list of returned objects by their fields. Defaults to everything.",
);
const labelSelector = query(
  "labelSelector",
  "string",
  "A selector to restrict the list of returned objects by their labels. Defaults to everything.",
);
const limit = query(
  "limit",
  "integer",
  "The maximum number of items to return; the list metadata carries a continue token when more exist.",
);
const resourceVersion = query(
  "resourceVersion",
  "string",
  "A constraint on which resource versions the request may be served from. Defaults to unset.",
);
const resourceVersionMatch = query(
  "resourceVersionMatch",
  "string",
  "How resourceVersion applies to a list call: Exact or NotOlderThan. Defaults to unset.",
);
const sendInitialEvents = query(
  "sendInitialEvents",
  "boolean",
  "With watch=true, start the watch with synthetic ADDED events for the current state, then a BOOKMARK.",
);
const timeoutSeconds = query(
  "timeoutSeconds",
  "integer",
  "Timeout for the list/watch call, regardless of any activity or inactivity.",
);
const watch = query(
  "watch",
  "boolean",
  "Watch for changes to the described resources and return them as a stream of add, update, and remove notifications. Specify resourceVersion.",
);

const listOptions = [
  allowWatchBookmarks,
  continueToken,
  fieldSelector,
  labelSelector,
  limit,
  resourceVersion,
  resourceVersionMatch,
  sendInitialEvents,
  timeoutSeconds,
  watch,
];
const deleteOptions = [dryRun, gracePeriodSeconds, orphanDependents, propagationPolicy];

/** The query parameters an operation of this kind takes besides `pretty`. */
export function actionParameters(action: Action): Parameter[] {
  switch (action) {
    case "get":
      return [];
    case "list":
    case "watch":
    case "watchlist":
      return [...listOptions];
    case "post":
    case "put":
      return [dryRun, fieldManager, fieldValidation];
    case "patch":
      return [dryRun, patchFieldManager, fieldValidation, force];
    case "delete":
      return [...deleteOptions];
    case "deletecollection":
      // Upstream leaves the watch-only list options out here.
      return [
        ...deleteOptions,
        ...listOptions.filter((p) => p.name !== "watch" && p.name !== "allowWatchBookmarks"),
      ];
  }
}

/** Parameters in the order the reference server lists them: by name. */
export function sortParameters(parameters: readonly Parameter[]): Parameter[] {
  return [...parameters].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
