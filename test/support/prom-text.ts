// A strict parser of Prometheus' text exposition format (version 0.0.4), for tests that scrape
// /metrics: every line must be a HELP, TYPE, comment or sample line; a family's TYPE comes before
// its samples and its samples are contiguous; names, label names and escapes follow the format;
// a series appears once; histograms have cumulative `le` buckets ending in +Inf equal to _count.
// Anything else throws, naming the line.

export type MetricType = "counter" | "gauge" | "histogram" | "summary" | "untyped";

export interface Sample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

export interface MetricFamily {
  readonly name: string;
  help?: string;
  type: MetricType;
  readonly samples: Sample[];
}

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const TYPES: ReadonlySet<string> = new Set(["counter", "gauge", "histogram", "summary", "untyped"]);

export class ParseError extends Error {}

function parseValue(text: string, where: string): number {
  if (text === "+Inf" || text === "Inf") return Number.POSITIVE_INFINITY;
  if (text === "-Inf") return Number.NEGATIVE_INFINITY;
  if (text === "NaN") return Number.NaN;
  if (!/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(text))
    throw new ParseError(`${where}: bad value "${text}"`);
  return Number(text);
}

function unescapeHelp(text: string, where: string): string {
  return text.replace(/\\(.?)/g, (_m, c: string) => {
    if (c === "\\") return "\\";
    if (c === "n") return "\n";
    throw new ParseError(`${where}: bad escape in HELP`);
  });
}

/** The family a sample belongs to: its own name, or a histogram's/summary's base name. */
function familyOf(name: string, families: Map<string, MetricFamily>): MetricFamily | undefined {
  const own = families.get(name);
  if (own) return own;
  for (const suffix of ["_bucket", "_sum", "_count"]) {
    if (!name.endsWith(suffix)) continue;
    const base = families.get(name.slice(0, -suffix.length));
    if (base && (base.type === "histogram" || (base.type === "summary" && suffix !== "_bucket"))) return base;
  }
  return undefined;
}

/** Parses `name{a="b",...} value [timestamp]`. */
function parseSample(line: string, where: string): Sample {
  let i = 0;
  while (i < line.length && line[i] !== "{" && line[i] !== " ") i++;
  const name = line.slice(0, i);
  if (!METRIC_NAME.test(name)) throw new ParseError(`${where}: bad metric name "${name}"`);
  const labels: Record<string, string> = {};
  if (line[i] === "{") {
    i++;
    for (;;) {
      if (line[i] === "}") {
        i++;
        break;
      }
      const eq = line.indexOf("=", i);
      if (eq < 0) throw new ParseError(`${where}: label without value`);
      const label = line.slice(i, eq);
      if (!LABEL_NAME.test(label)) throw new ParseError(`${where}: bad label name "${label}"`);
      if (label in labels) throw new ParseError(`${where}: label "${label}" twice`);
      if (line[eq + 1] !== '"') throw new ParseError(`${where}: label value not quoted`);
      let j = eq + 2;
      let value = "";
      for (;;) {
        const c = line[j];
        if (c === undefined) throw new ParseError(`${where}: unterminated label value`);
        if (c === '"') break;
        if (c === "\\") {
          const next = line[j + 1];
          if (next === "\\") value += "\\";
          else if (next === '"') value += '"';
          else if (next === "n") value += "\n";
          else throw new ParseError(`${where}: bad escape in label value`);
          j += 2;
          continue;
        }
        value += c;
        j++;
      }
      labels[label] = value;
      i = j + 1;
      if (line[i] === ",") i++;
      else if (line[i] !== "}") throw new ParseError(`${where}: expected , or } after a label`);
    }
  }
  if (line[i] !== " ") throw new ParseError(`${where}: expected a space before the value`);
  const rest = line.slice(i + 1).split(" ");
  if (rest.length < 1 || rest.length > 2 || rest.some((p) => p === ""))
    throw new ParseError(`${where}: expected a value and an optional timestamp`);
  const value = parseValue(rest[0] as string, where);
  if (rest[1] !== undefined && !/^-?\d+$/.test(rest[1])) throw new ParseError(`${where}: bad timestamp`);
  return { name, labels, value };
}

function checkHistogram(family: MetricFamily): void {
  const series = new Map<string, { buckets: [number, number][]; count?: number; sum?: number }>();
  for (const s of family.samples) {
    const { le, ...rest } = s.labels;
    const key = JSON.stringify(Object.entries(rest).sort());
    const entry = series.get(key) ?? { buckets: [] };
    series.set(key, entry);
    if (s.name.endsWith("_bucket")) {
      if (le === undefined) throw new ParseError(`${family.name}: bucket without le`);
      entry.buckets.push([parseValue(le, family.name), s.value]);
    } else if (s.name.endsWith("_count")) entry.count = s.value;
    else if (s.name.endsWith("_sum")) entry.sum = s.value;
    else throw new ParseError(`${family.name}: histogram sample ${s.name}`);
  }
  for (const [key, entry] of series) {
    const les = entry.buckets.map(([le]) => le);
    if (les.at(-1) !== Number.POSITIVE_INFINITY)
      throw new ParseError(`${family.name} ${key}: no +Inf bucket`);
    for (let k = 1; k < entry.buckets.length; k++) {
      const [le, n] = entry.buckets[k] as [number, number];
      const [prevLe, prevN] = entry.buckets[k - 1] as [number, number];
      if (le <= prevLe) throw new ParseError(`${family.name} ${key}: le not increasing`);
      if (n < prevN) throw new ParseError(`${family.name} ${key}: buckets not cumulative`);
    }
    if (entry.count === undefined || entry.sum === undefined)
      throw new ParseError(`${family.name} ${key}: _count or _sum missing`);
    if (entry.buckets.at(-1)?.[1] !== entry.count)
      throw new ParseError(`${family.name} ${key}: +Inf bucket differs from _count`);
  }
}

export function parsePrometheusText(text: string): Map<string, MetricFamily> {
  const families = new Map<string, MetricFamily>();
  const seriesSeen = new Set<string>();
  let current: MetricFamily | undefined;
  const closed = new Set<string>();
  const lines = text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  lines.forEach((line, index) => {
    const where = `line ${index + 1}`;
    if (line.trim() === "") return;
    if (line.startsWith("#")) {
      const m = /^# (HELP|TYPE) (\S+)(?: (.*))?$/.exec(line);
      if (!m) return; // an ordinary comment
      const [, keyword, name = "", rest = ""] = m;
      if (!METRIC_NAME.test(name)) throw new ParseError(`${where}: bad metric name "${name}"`);
      let family = families.get(name);
      if (family && closed.has(name))
        throw new ParseError(`${where}: ${name} described again after its samples`);
      if (!family) {
        family = { name, type: "untyped", samples: [] };
        families.set(name, family);
      }
      if (current && current !== family) closed.add(current.name);
      current = family;
      if (keyword === "HELP") {
        if (family.help !== undefined) throw new ParseError(`${where}: second HELP for ${name}`);
        family.help = unescapeHelp(rest, where);
      } else {
        if (!TYPES.has(rest)) throw new ParseError(`${where}: unknown type "${rest}"`);
        if (family.samples.length > 0) throw new ParseError(`${where}: TYPE after samples of ${name}`);
        family.type = rest as MetricType;
      }
      return;
    }
    const sample = parseSample(line, where);
    let family = familyOf(sample.name, families);
    if (!family) {
      family = { name: sample.name, type: "untyped", samples: [] };
      families.set(sample.name, family);
    }
    if (closed.has(family.name))
      throw new ParseError(`${where}: samples of ${family.name} are not contiguous`);
    if (current && current !== family) closed.add(current.name);
    current = family;
    if (family.type === "histogram" && sample.name === family.name)
      throw new ParseError(`${where}: histogram ${family.name} has a plain sample`);
    const id = `${sample.name}${JSON.stringify(Object.entries(sample.labels).sort())}`;
    if (seriesSeen.has(id)) throw new ParseError(`${where}: series ${id} twice`);
    seriesSeen.add(id);
    family.samples.push(sample);
  });
  for (const family of families.values()) if (family.type === "histogram") checkHistogram(family);
  return families;
}
