// The CSV dialect of the static token file: the one Go's encoding/csv reads with its defaults
// (comma separator, no comment character, strict quotes, variable field counts), so a file that
// upstream accepts reads the same here and one it refuses is refused with a line number.

export interface CsvRecord {
  /** 1-based line on which the record starts. */
  readonly line: number;
  readonly fields: readonly string[];
}

export class CsvError extends Error {
  readonly line: number;
  readonly column: number;
  constructor(line: number, column: number, message: string) {
    super(`parse error on line ${line}, column ${column}: ${message}`);
    this.name = "CsvError";
    this.line = line;
    this.column = column;
  }
}

export function parseCsv(input: string): CsvRecord[] {
  // "\r\n" counts as "\n", as in Go; a lone "\r" is an ordinary character.
  const text = input.replace(/\r\n/g, "\n");
  const records: CsvRecord[] = [];
  let pos = 0;
  let line = 1;
  while (pos < text.length) {
    // Empty lines are skipped; a line of spaces is a record with one field.
    if (text[pos] === "\n") {
      pos++;
      line++;
      continue;
    }
    const startLine = line;
    const fields: string[] = [];
    let lineStart = pos;
    for (;;) {
      if (text[pos] === '"') {
        // Quoted field: "" stands for one quote; newlines are part of the value.
        const column = pos - lineStart + 1;
        pos++;
        let value = "";
        for (;;) {
          const quote = text.indexOf('"', pos);
          if (quote < 0) throw new CsvError(line, column, 'extraneous or missing " in quoted-field');
          const chunk = text.slice(pos, quote);
          for (let i = chunk.indexOf("\n"); i >= 0; i = chunk.indexOf("\n", i + 1)) {
            line++;
            lineStart = pos + i + 1;
          }
          value += chunk;
          pos = quote + 1;
          if (text[pos] === '"') {
            value += '"';
            pos++;
            continue;
          }
          break;
        }
        fields.push(value);
        const next = text[pos];
        if (next === ",") {
          pos++;
          continue;
        }
        if (next === "\n" || next === undefined) break;
        throw new CsvError(line, pos - lineStart + 1, 'extraneous or missing " in quoted-field');
      }
      let end = pos;
      while (end < text.length && text[end] !== "," && text[end] !== "\n") end++;
      const value = text.slice(pos, end);
      const bare = value.indexOf('"');
      if (bare >= 0) throw new CsvError(line, pos - lineStart + bare + 1, 'bare " in non-quoted-field');
      fields.push(value);
      pos = end;
      if (text[pos] === ",") {
        pos++;
        continue;
      }
      break;
    }
    records.push({ line: startLine, fields });
    if (text[pos] === "\n") {
      pos++;
      line++;
    }
  }
  return records;
}
