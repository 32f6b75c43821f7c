// YAML request bodies (`application/yaml`): YAML 1.2 (core schema) to a JSON-compatible value,
// with duplicate mapping keys reported by path the same way as for JSON (the last value wins), and
// also in the line-numbered wording upstream's YAML decoder uses for them.
//
// One pass of js-yaml's event parser feeds both the duplicate check (a walk over the events) and
// the construction of the value, so the text is parsed once.
import {
  constructFromEvents,
  EVENT_ID,
  type Event,
  getScalarValue,
  type MappingEvent,
  parseEvents,
  SCALAR_STYLE,
  type ScalarEvent,
  type SequenceEvent,
  YAMLException,
} from "js-yaml";
import { MAX_BODY_DEPTH, nestingLimitText, nestsWithin } from "../../backends/registry/index.ts";
import { goQuote } from "./json-decode.ts";

/** Malformed or unusable YAML; the caller turns it into a 400. */
export class YamlSyntaxError extends Error {
  /** 1-based line and column, when known. */
  readonly line: number | undefined;
  readonly column: number | undefined;

  constructor(message: string, line?: number, column?: number) {
    super(message);
    this.name = "YamlSyntaxError";
    this.line = line;
    this.column = column;
  }
}

export interface YamlDecoded {
  /** The document's value; null for an empty body. */
  readonly value: unknown;
  /** Paths of duplicated keys (`metadata.labels.a`, `spec.containers[0].name`), each once, at most 100. */
  readonly duplicates: string[];
  /**
   * Upstream's strict-decoding text for YAML duplicates, e.g.
   * `error converting YAML to JSON: yaml: unmarshal errors:\n  line 4: key "a" already set in map`;
   * undefined when there are none.
   */
  readonly duplicatesMessage: string | undefined;
}

/** Nesting deeper than this is refused, as for JSON bodies (see backends/registry/depth.ts). */
const MAX_DEPTH = MAX_BODY_DEPTH;
/** The parser counts a level or two more than the value has; the value is measured after. */
const PARSER_MAX_DEPTH = MAX_DEPTH + 2;
/** Aliases may expand a document to at most this many nodes. */
const MAX_EXPANDED_NODES = 1_000_000;
const MAX_REPORTED = 100;

/** Decode a YAML body holding one document. Throws YamlSyntaxError. */
export function decodeYaml(text: string): YamlDecoded {
  let events: Event[];
  try {
    events = parseEvents(text, { maxDepth: PARSER_MAX_DEPTH });
  } catch (err) {
    throw fromException(err);
  }
  const walk = walkEvents(text, events);
  if (walk.documents === 0) return { value: null, duplicates: [], duplicatesMessage: undefined };
  let value: unknown;
  try {
    value = constructFromEvents(events, { source: text, json: true })[0] ?? null;
  } catch (err) {
    throw fromException(err);
  }
  if (walk.aliases > 0) checkExpansion(value);
  if (!nestsWithin(value, MAX_DEPTH)) throw tooDeep("");
  if (walk.nonFinite) throw new YamlSyntaxError(`json: unsupported value: ${walk.nonFinite}`);
  const duplicatesMessage =
    walk.lines.length === 0
      ? undefined
      : `error converting YAML to JSON: yaml: unmarshal errors:\n${walk.lines.map((l) => `  ${l}`).join("\n")}`;
  return { value, duplicates: walk.duplicates, duplicatesMessage };
}

function tooDeep(where: string): YamlSyntaxError {
  return new YamlSyntaxError(`yaml: exceeded max depth: ${nestingLimitText(MAX_DEPTH)}${where}`);
}

function fromException(err: unknown): YamlSyntaxError {
  if (err instanceof YAMLException) {
    const mark = err.mark;
    const where = mark ? ` (line ${mark.line + 1}, column ${mark.column + 1})` : "";
    if (err.reason.startsWith("nesting exceeded maxDepth")) return tooDeep(where);
    return new YamlSyntaxError(
      `yaml: ${err.reason}${where}`,
      mark ? mark.line + 1 : undefined,
      mark ? mark.column + 1 : undefined,
    );
  }
  if (err instanceof RangeError) return new YamlSyntaxError("yaml: document is nested too deeply");
  return new YamlSyntaxError(`yaml: ${err instanceof Error ? err.message : String(err)}`);
}

// ---------------------------------------------------------------------------------------------
// The event walk

interface Container {
  readonly isMapping: boolean;
  /** Mappings: keys seen so far. */
  readonly keys: Set<string> | undefined;
  /** Mappings: whether the next node is a key. */
  expectKey: boolean;
  /** Mappings: the pending key (undefined when it could not be named). */
  key: string | undefined;
  /** Mappings: the pending key was seen before. */
  duplicate: boolean;
  /** Sequences: index of the next item. */
  index: number;
  /** Path of this container ("" at the top). */
  readonly path: string;
}

interface Walk {
  documents: number;
  aliases: number;
  duplicates: string[];
  lines: string[];
  nonFinite: string | undefined;
}

// Plain scalars that certainly resolve to strings under either YAML schema, so a key like this
// needs no resolution. Everything else is resolved the way the constructor will.
const SIMPLE_KEY = /^[A-Za-z_][A-Za-z0-9_./-]*$/;
const KEYWORDS = new Set([
  "null",
  "Null",
  "NULL",
  "true",
  "True",
  "TRUE",
  "false",
  "False",
  "FALSE",
  "y",
  "Y",
  "yes",
  "Yes",
  "YES",
  "n",
  "N",
  "no",
  "No",
  "NO",
  "on",
  "On",
  "ON",
  "off",
  "Off",
  "OFF",
]);
const NON_FINITE = /^[-+]?\.(?:inf|Inf|INF)$|^\.(?:nan|NaN|NAN)$/;

const DOCUMENT_EVENT: Event = {
  type: EVENT_ID.DOCUMENT,
  explicitStart: false,
  explicitEnd: false,
  directives: [],
};
const POP_EVENT: Event = { type: EVENT_ID.POP };

function walkEvents(text: string, events: readonly Event[]): Walk {
  const walk: Walk = { documents: 0, aliases: 0, duplicates: [], lines: [], nonFinite: undefined };
  const seen = new Set<string>();
  const anchors = new Map<string, string | undefined>();
  const stack: Container[] = [];
  let lineStarts: number[] | undefined;
  const lineOf = (offset: number): number => {
    lineStarts ??= computeLineStarts(text);
    let lo = 0;
    let hi = lineStarts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (lineStarts[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  };
  let lastOffset = 0;

  /** Where a node starts, for the line-numbered message. */
  const startOf = (e: Event): number => {
    switch (e.type) {
      case EVENT_ID.SCALAR:
        return e.valueStart >= 0 ? e.valueStart : lastOffset;
      case EVENT_ID.MAPPING:
      case EVENT_ID.SEQUENCE:
        return e.start >= 0 ? e.start : lastOffset;
      case EVENT_ID.ALIAS:
        return e.anchorStart >= 0 ? e.anchorStart : lastOffset;
      default:
        return lastOffset;
    }
  };

  const childPath = (parent: Container | undefined): string => {
    if (!parent) return "";
    if (parent.isMapping) {
      if (parent.key === undefined) return parent.path;
      return parent.path === "" ? parent.key : `${parent.path}.${parent.key}`;
    }
    return `${parent.path}[${parent.index}]`;
  };

  /** A node that is a value (not a key) has started in the current container. */
  const valueStarted = (e: Event) => {
    const parent = stack[stack.length - 1];
    if (parent?.isMapping && parent.duplicate && parent.key !== undefined) {
      const line = lineOf(startOf(e));
      walk.lines.push(`line ${line}: key ${goQuote(parent.key)} already set in map`);
    }
  };

  /** A complete node has ended in the current container. */
  const nodeEnded = () => {
    const parent = stack[stack.length - 1];
    if (!parent) return;
    if (parent.isMapping) {
      parent.expectKey = true;
      parent.key = undefined;
      parent.duplicate = false;
    } else parent.index++;
  };

  /** A key has been read in mapping `m`. */
  const keyRead = (m: Container, key: string | undefined) => {
    m.key = key;
    m.expectKey = false;
    m.duplicate = false;
    if (key === undefined) return;
    if (m.keys!.has(key)) {
      m.duplicate = true;
      const path = m.path === "" ? key : `${m.path}.${key}`;
      if (!seen.has(path) && walk.duplicates.length < MAX_REPORTED) {
        seen.add(path);
        walk.duplicates.push(path);
      }
    } else m.keys!.add(key);
  };

  const anchorName = (e: ScalarEvent | MappingEvent | SequenceEvent): string | undefined =>
    e.anchorStart >= 0 ? text.slice(e.anchorStart, e.anchorEnd) : undefined;

  for (const e of events) {
    const top = stack[stack.length - 1];
    const isKey = top?.isMapping === true && top.expectKey;
    switch (e.type) {
      case EVENT_ID.DOCUMENT:
        walk.documents++;
        break;
      case EVENT_ID.SCALAR: {
        if (stack.length === 0 && walk.documents > 1) {
          // A trailing `---` opens an empty document, which is harmless.
          if (e.valueStart < 0 && e.tagStart < 0 && e.anchorStart < 0) break;
          throw multipleDocuments();
        }
        if (e.valueEnd >= 0) lastOffset = e.valueEnd;
        if (isKey) {
          const key = scalarKey(text, e);
          const anchor = anchorName(e);
          if (anchor !== undefined) anchors.set(anchor, key);
          keyRead(top, key);
          break;
        }
        valueStarted(e);
        const anchor = anchorName(e);
        if (anchor !== undefined) anchors.set(anchor, scalarKey(text, e));
        if (
          walk.nonFinite === undefined &&
          e.style === SCALAR_STYLE.PLAIN &&
          e.tagStart < 0 &&
          e.valueStart >= 0 &&
          NON_FINITE.test(text.slice(e.valueStart, e.valueEnd))
        ) {
          const v = text.slice(e.valueStart, e.valueEnd);
          walk.nonFinite = /nan/i.test(v) ? "NaN" : v.startsWith("-") ? "-Inf" : "+Inf";
        }
        nodeEnded();
        break;
      }
      case EVENT_ID.ALIAS: {
        if (stack.length === 0 && walk.documents > 1) throw multipleDocuments();
        walk.aliases++;
        const name = text.slice(e.anchorStart, e.anchorEnd);
        if (isKey) {
          keyRead(top, anchors.get(name));
          break;
        }
        valueStarted(e);
        nodeEnded();
        break;
      }
      case EVENT_ID.MAPPING:
      case EVENT_ID.SEQUENCE: {
        if (stack.length === 0 && walk.documents > 1) throw multipleDocuments();
        if (isKey)
          throw new YamlSyntaxError(`yaml: line ${lineOf(startOf(e))}: invalid map key: a collection`);
        valueStarted(e);
        const anchor = anchorName(e);
        if (anchor !== undefined) anchors.set(anchor, undefined);
        const isMapping = e.type === EVENT_ID.MAPPING;
        stack.push({
          isMapping,
          keys: isMapping ? new Set() : undefined,
          expectKey: true,
          key: undefined,
          duplicate: false,
          index: 0,
          path: childPath(top),
        });
        break;
      }
      case EVENT_ID.POP:
        if (stack.length === 0) break; // end of the document
        stack.pop();
        nodeEnded();
        break;
    }
  }
  return walk;
}

function multipleDocuments(): YamlSyntaxError {
  return new YamlSyntaxError("yaml: the body holds more than one document; send one object per request");
}

/** The string a scalar becomes as a mapping key, the way the constructor converts it. */
function scalarKey(text: string, e: ScalarEvent): string {
  const raw = e.valueStart >= 0 ? getScalarValue(text, e) : "";
  if (e.style !== SCALAR_STYLE.PLAIN && e.tagStart < 0) return raw;
  if (e.tagStart < 0 && SIMPLE_KEY.test(raw) && !KEYWORDS.has(raw)) return raw;
  try {
    const [value] = constructFromEvents([DOCUMENT_EVENT, e, POP_EVENT], { source: text });
    return String(value);
  } catch {
    return raw;
  }
}

function computeLineStarts(text: string): number[] {
  const starts = [0];
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) starts.push(i + 1);
  return starts;
}

/** Refuse documents whose aliases expand to too many nodes (the "billion laughs"). */
function checkExpansion(root: unknown): void {
  let nodes = 0;
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const v = stack.pop();
    if (++nodes > MAX_EXPANDED_NODES) throw new YamlSyntaxError("yaml: document contains excessive aliasing");
    if (typeof v !== "object" || v === null) continue;
    if (Array.isArray(v)) for (const e of v) stack.push(e);
    else for (const k in v as Record<string, unknown>) stack.push((v as Record<string, unknown>)[k]);
  }
}
