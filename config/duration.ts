// Durations written the way kube-apiserver flags take them: 300ms, 30s, 5m, 1h30m.
const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** Milliseconds for a duration string; "0" is zero. */
export function parseDuration(text: string): number {
  if (text === "0") return 0;
  const re = /(\d+(?:\.\d+)?)(ms|s|m|h)/gy;
  let total = 0;
  let end = 0;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    total += Number(m[1]) * (UNITS[m[2] as string] as number);
    end = re.lastIndex;
  }
  if (end === 0 || end !== text.length)
    throw new Error(`"${text}" is not a duration such as 300ms, 30s, 5m or 1h30m`);
  return Math.round(total);
}
