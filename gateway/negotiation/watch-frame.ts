// Encoding responses: single objects (`encodeObject`) and watch events (`encodeWatchFrame`,
// `createWatchFramer`) in the negotiated output.
//
// Upstream's wire shapes, which clients parse:
// - JSON: compact, one trailing newline; with pretty printing, indented by two spaces and without
//   the newline. A watch stream is one `{"type":...,"object":...}` document per line.
// - YAML: the object converted through JSON, mapping keys sorted (digits compared as numbers,
//   non-letters before letters), block sequences not indented under their key, strings that
//   would read as another type double-quoted. Watch documents are each preceded by `---`.
// - Table watch: every event's object is a one-row Table; only the stream's first event carries
//   columnDefinitions (later ones have null), whatever that event's type. ERROR events pass their
//   Status through unchanged.
// - PartialObjectMetadata watch: each object reduced to its metadata. A watch asking for
//   PartialObjectMetadataList gets the objects unchanged (upstream's transform fails per event and
//   falls back to the object).
//
// The watch cache keeps objects as JSON strings, so the common JSON frame is built by
// concatenation without parsing.
import { dump, visit } from "js-yaml";
import type { Naming } from "../../backends/naming/index.ts";
import type { TableColumn } from "../../backends/schema/index.ts";
import type { OutputChoice } from "./media-type.ts";
import { toPartialObjectMetadata } from "./partial-metadata.ts";
import { toTable } from "./table.ts";

export type WatchEventType = "ADDED" | "MODIFIED" | "DELETED" | "BOOKMARK" | "ERROR";

export interface WatchFrameInput {
  readonly type: WatchEventType;
  /** The event's object, already encoded as compact JSON. */
  readonly objectJson: string;
}

export interface WatchFrameContext {
  readonly naming: Naming;
  /** The kind's table columns (ResourceSchema.tableColumns), for Table output. */
  readonly columns?: readonly TableColumn[];
}

type Obj = Record<string, unknown>;

// ---------------------------------------------------------------------------------------------
// YAML

/**
 * Order of mapping keys in YAML output: code point by code point, except that a letter sorts after
 * a non-letter and runs of digits compare by numeric value (`a2` before `a10`).
 */
export function compareYamlKeys(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const ca = a.charCodeAt(i);
    const cb = b.charCodeAt(i);
    if (ca === cb) continue;
    const la = isLetter(a, i);
    const lb = isLetter(b, i);
    if (la && lb) return ca - cb;
    if (la !== lb) return la ? 1 : -1;
    // Neither is a letter: compare the digit runs starting here as numbers. A zero that continues
    // a number (a non-zero digit before it) is part of that number, not a leading zero.
    let na = 0;
    let nb = 0;
    if (ca === 48 || cb === 48) {
      for (let j = i - 1; j >= 0 && isDigit(a.charCodeAt(j)); j--) {
        if (a.charCodeAt(j) !== 48) {
          na = 1;
          nb = 1;
          break;
        }
      }
    }
    let ea = i;
    while (ea < a.length && isDigit(a.charCodeAt(ea))) na = na * 10 + (a.charCodeAt(ea++) - 48);
    let eb = i;
    while (eb < b.length && isDigit(b.charCodeAt(eb))) nb = nb * 10 + (b.charCodeAt(eb++) - 48);
    if (na !== nb) return na - nb;
    if (ea !== eb) return ea - eb;
    return ca - cb;
  }
  return a.length - b.length;
}

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

const LETTER = /\p{L}/u;
function isLetter(s: string, i: number): boolean {
  const c = s.charCodeAt(i);
  if (c < 128) return (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
  return LETTER.test(s[i]!);
}

/** An object as YAML: keys sorted, sequences unindented, double quotes where quoting is needed. */
export function toYaml(value: unknown): string {
  return dump(value, {
    quoteStyle: "double",
    seqNoIndent: true,
    lineWidth: -1,
    noRefs: true,
    skipInvalid: true,
    transform: (documents) =>
      visit(documents, (node) => {
        if (node.kind !== "mapping") return;
        node.items.sort((x, y) =>
          compareYamlKeys(
            x.key.kind === "scalar" ? x.key.value : "",
            y.key.kind === "scalar" ? y.key.value : "",
          ),
        );
      }),
  });
}

// ---------------------------------------------------------------------------------------------
// Single objects

/**
 * Encode a response object (already transformed for table/partial-metadata kinds) in the chosen
 * encoding. Protobuf is not encoded here; the caller handles it before calling.
 */
export function encodeObject(object: unknown, output: OutputChoice): string {
  switch (output.encoding) {
    case "json":
      return output.pretty ? JSON.stringify(object, null, 2) : `${JSON.stringify(object)}\n`;
    case "yaml":
      return toYaml(object);
    default:
      throw new Error(`encodeObject: ${output.encoding} is not encoded by this module`);
  }
}

// ---------------------------------------------------------------------------------------------
// Watch frames

export interface WatchFrameOptions {
  /** Table output: include columnDefinitions (true for the first event of a stream). */
  readonly headers?: boolean;
}

/** The event object the output asks for, or undefined when the stored JSON goes out as it is. */
function transformEventObject(
  event: WatchFrameInput,
  output: OutputChoice,
  context: WatchFrameContext,
  headers: boolean,
): Obj | undefined {
  if (event.type === "ERROR") return undefined;
  switch (output.kind) {
    case "table": {
      const object = JSON.parse(event.objectJson) as Obj;
      const meta = object.metadata as Obj | undefined;
      const rv = meta && typeof meta.resourceVersion === "string" ? meta.resourceVersion : undefined;
      return toTable({
        items: [object],
        listMeta: rv === undefined ? {} : { resourceVersion: rv },
        ...(context.columns ? { columns: context.columns } : {}),
        includeObject: output.includeObject ?? "Metadata",
        tableVersion: output.tableVersion ?? output.metaVersion ?? "v1",
        naming: context.naming,
        headers,
      });
    }
    case "partial-metadata":
      return toPartialObjectMetadata(JSON.parse(event.objectJson) as Obj, {
        naming: context.naming,
        version: output.metaVersion ?? "v1",
      });
    default:
      return undefined;
  }
}

function trimNewline(json: string): string {
  return json.charCodeAt(json.length - 1) === 10 ? json.trimEnd() : json;
}

/**
 * One watch event as bytes on the wire for the chosen output. Stateless: for Table output the
 * caller says whether this frame carries the headers (see createWatchFramer).
 */
export function encodeWatchFrame(
  event: WatchFrameInput,
  output: OutputChoice,
  context: WatchFrameContext,
  options: WatchFrameOptions = {},
): string {
  const transformed = transformEventObject(event, output, context, options.headers !== false);
  switch (output.encoding) {
    case "json": {
      const objectJson = transformed ? JSON.stringify(transformed) : trimNewline(event.objectJson);
      return `{"type":${JSON.stringify(event.type)},"object":${objectJson}}\n`;
    }
    case "yaml": {
      const object = transformed ?? JSON.parse(event.objectJson);
      return `---\n${toYaml({ type: event.type, object })}`;
    }
    default:
      throw new Error(`encodeWatchFrame: ${output.encoding} is not encoded by this module`);
  }
}

export interface WatchFramer {
  /** The next event of this stream as bytes. */
  frame(event: WatchFrameInput): string;
}

/** Frames for one watch stream; tracks that only the first Table event carries headers. */
export function createWatchFramer(output: OutputChoice, context: WatchFrameContext): WatchFramer {
  let first = true;
  return {
    frame(event) {
      const headers = first;
      first = false;
      return encodeWatchFrame(event, output, context, { headers });
    },
  };
}
