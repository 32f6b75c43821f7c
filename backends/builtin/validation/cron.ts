// CronJob schedules, read as upstream's cron library's standard parser reads them: five fields
// (minute, hour, day of month, month, day of week; names allowed for months and weekdays),
// descriptors such as @hourly and `@every <duration>`, and an optional TZ=/CRON_TZ= prefix.
// Answers the library's error text, which upstream returns to the user as is.

interface Bounds {
  readonly min: number;
  readonly max: number;
  readonly names?: Readonly<Record<string, number>>;
}

const MINUTES: Bounds = { min: 0, max: 59 };
const HOURS: Bounds = { min: 0, max: 23 };
const DOM: Bounds = { min: 1, max: 31 };
const MONTHS: Bounds = {
  min: 1,
  max: 12,
  names: {
    jan: 1,
    feb: 2,
    mar: 3,
    apr: 4,
    may: 5,
    jun: 6,
    jul: 7,
    aug: 8,
    sep: 9,
    oct: 10,
    nov: 11,
    dec: 12,
  },
};
const DOW: Bounds = { min: 0, max: 6, names: { sun: 0, mon: 1, tue: 2, wed: 3, thu: 4, fri: 5, sat: 6 } };
const FIELDS = [MINUTES, HOURS, DOM, MONTHS, DOW];

const DESCRIPTORS = new Set([
  "@yearly",
  "@annually",
  "@monthly",
  "@weekly",
  "@daily",
  "@midnight",
  "@hourly",
]);

class CronError extends Error {}

/** Go's strconv.Atoi error text for a value that is not a decimal int. */
function atoi(expr: string): number {
  if (!/^[+-]?[0-9]+$/.test(expr))
    throw new CronError(`strconv.Atoi: parsing ${JSON.stringify(expr)}: invalid syntax`);
  const big = BigInt(expr);
  if (big > 9223372036854775807n || big < -9223372036854775808n)
    throw new CronError(`strconv.Atoi: parsing ${JSON.stringify(expr)}: value out of range`);
  return Number(big);
}

function mustParseInt(expr: string): number {
  let num: number;
  try {
    num = atoi(expr);
  } catch (e) {
    throw new CronError(`failed to parse int from ${expr}: ${(e as Error).message}`);
  }
  if (num < 0) throw new CronError(`negative number (${num}) not allowed: ${expr}`);
  return num;
}

function parseIntOrName(expr: string, names: Readonly<Record<string, number>> | undefined): number {
  if (names) {
    const named = names[expr.toLowerCase()];
    if (named !== undefined) return named;
  }
  return mustParseInt(expr);
}

function checkRange(expr: string, r: Bounds): void {
  const rangeAndStep = expr.split("/");
  const lowAndHigh = (rangeAndStep[0] ?? "").split("-");
  const single = lowAndHigh.length === 1;
  let start: number;
  let end: number;
  if (lowAndHigh[0] === "*" || lowAndHigh[0] === "?") {
    start = r.min;
    end = r.max;
  } else {
    start = parseIntOrName(lowAndHigh[0] ?? "", r.names);
    if (lowAndHigh.length === 1) end = start;
    else if (lowAndHigh.length === 2) end = parseIntOrName(lowAndHigh[1] ?? "", r.names);
    else throw new CronError(`too many hyphens: ${expr}`);
  }
  let step: number;
  if (rangeAndStep.length === 1) step = 1;
  else if (rangeAndStep.length === 2) {
    step = mustParseInt(rangeAndStep[1] ?? "");
    // "N/step" means "N-max/step".
    if (single) end = r.max;
  } else throw new CronError(`too many slashes: ${expr}`);
  if (start < r.min) throw new CronError(`beginning of range (${start}) below minimum (${r.min}): ${expr}`);
  if (end > r.max) throw new CronError(`end of range (${end}) above maximum (${r.max}): ${expr}`);
  if (start > end) throw new CronError(`beginning of range (${start}) beyond end of range (${end}): ${expr}`);
  if (step === 0) throw new CronError(`step of range should be a positive number: ${expr}`);
}

function checkField(text: string, r: Bounds): void {
  for (const expr of text.split(",")) {
    if (expr === "") continue;
    checkRange(expr, r);
  }
}

const DURATION_UNITS: Readonly<Record<string, number>> = {
  ns: 1,
  us: 1e3,
  µs: 1e3,
  μs: 1e3,
  ms: 1e6,
  s: 1e9,
  m: 60e9,
  h: 3600e9,
};

/** Go's time.ParseDuration, for its error text (the value itself is not needed). */
export function goDurationError(s: string): string | undefined {
  const quoted = JSON.stringify(s);
  let i = 0;
  if (s[0] === "-" || s[0] === "+") i++;
  if (s.slice(i) === "0") return undefined;
  if (i === s.length) return `time: invalid duration ${quoted}`;
  while (i < s.length) {
    const c = s[i]!;
    if (!(c === "." || (c >= "0" && c <= "9"))) return `time: invalid duration ${quoted}`;
    const intStart = i;
    while (i < s.length && s[i]! >= "0" && s[i]! <= "9") i++;
    const pre = i > intStart;
    let post = false;
    if (s[i] === ".") {
      i++;
      const fracStart = i;
      while (i < s.length && s[i]! >= "0" && s[i]! <= "9") i++;
      post = i > fracStart;
    }
    if (!pre && !post) return `time: invalid duration ${quoted}`;
    const unitStart = i;
    while (i < s.length && s[i] !== "." && !(s[i]! >= "0" && s[i]! <= "9")) i++;
    if (unitStart === i) return `time: missing unit in duration ${quoted}`;
    const unit = s.slice(unitStart, i);
    if (DURATION_UNITS[unit] === undefined)
      return `time: unknown unit ${JSON.stringify(unit)} in duration ${quoted}`;
  }
  return undefined;
}

/**
 * The parser's complaint about a schedule, or undefined when it parses. `zoneError` answers Go's
 * error for an unknown location name (or undefined when known).
 */
export function cronScheduleError(
  spec: string,
  zoneError: (name: string) => string | undefined,
): string | undefined {
  try {
    parseStandard(spec, zoneError);
    return undefined;
  } catch (e) {
    if (e instanceof CronError) return e.message;
    throw e;
  }
}

function parseStandard(specText: string, zoneError: (name: string) => string | undefined): void {
  let spec = specText;
  if (spec.length === 0) throw new CronError("empty spec string");
  if (spec.startsWith("TZ=") || spec.startsWith("CRON_TZ=")) {
    const space = spec.indexOf(" ");
    const eq = spec.indexOf("=");
    const name = space < 0 ? spec.slice(eq + 1) : spec.slice(eq + 1, space);
    const problem = zoneError(name) ?? (space < 0 ? `unknown time zone ${name}` : undefined);
    if (problem !== undefined) throw new CronError(`provided bad location ${name}: ${problem}`);
    spec = spec.slice(space).trim();
  }
  if (spec.startsWith("@")) {
    if (DESCRIPTORS.has(spec)) return;
    if (spec.startsWith("@every ")) {
      const problem = goDurationError(spec.slice("@every ".length));
      if (problem !== undefined) throw new CronError(`failed to parse duration ${spec}: ${problem}`);
      return;
    }
    throw new CronError(`unrecognized descriptor: ${spec}`);
  }
  const fields = spec.split(/[\t\n\v\f\r \u0085\u00a0]+/).filter((f) => f !== "");
  if (fields.length !== 5)
    throw new CronError(`expected exactly 5 fields, found ${fields.length}: [${fields.join(" ")}]`);
  for (let i = 0; i < 5; i++) checkField(fields[i]!, FIELDS[i]!);
}
