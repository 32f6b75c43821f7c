// `Warning` header values for the texts gathered while serving a request (RFC 7234 code 299, no
// agent), the form clients such as kubectl print, built as upstream's warning recorder builds
// them: empty and repeated texts dropped, `"` and `\` escaped, texts with control characters
// dropped (upstream cannot build a header from them), and every text cut to 256 characters once
// the total passes 4096. The result never makes Node refuse the header: a committed write must
// not turn into a 500 while its response is built.

const TOTAL_RUNES = 4 * 1024;
const ITEM_RUNES = 256;

// Go's unicode.IsControl: C0, DEL and C1.
const CONTROL = /\p{Cc}/u;
// Anything but printable ASCII; once controls are out, the characters Node would write as Latin-1.
const NOT_ASCII = /[^ -~]/;

/** One header value, or undefined for a text upstream would not send. */
function headerValue(text: string): string | undefined {
  if (CONTROL.test(text)) return undefined;
  const value = `299 - "${text.replace(/["\\]/g, "\\$&")}"`;
  // Go sends non-ASCII text as its UTF-8 bytes; Node writes header strings as Latin-1, so each
  // byte becomes one character here (and clients read back the same bytes upstream sends).
  return NOT_ASCII.test(value) ? Buffer.from(value, "utf8").toString("latin1") : value;
}

/**
 * Whether header values carry bytes beyond ASCII. Node writes the headers as Latin-1 (one byte per
 * character) only when the body is bytes; with a string body it encodes them as UTF-8 too, which
 * would encode such bytes twice. Callers send the body as bytes then.
 */
export function hasRawBytes(values: readonly string[]): boolean {
  return values.some((v) => NOT_ASCII.test(v));
}

export function warningHeader(warnings: readonly string[]): string[] {
  const seen = new Set<string>();
  // Texts as characters, as Go counts runes.
  const ordered: string[][] = [];
  let out: string[] = [];
  let written = 0;
  let truncating = false;
  const add = (runes: readonly string[], value: string) => {
    written += runes.length;
    out.push(value);
  };
  for (const warning of warnings) {
    if (warning === "" || seen.has(warning)) continue;
    if (truncating && written >= TOTAL_RUNES) break;
    seen.add(warning);
    // Lone surrogates become U+FFFD, as Go's decoders leave invalid text.
    const runes = Array.from(warning.toWellFormed());
    ordered.push(runes);
    const cut = truncating ? runes.slice(0, ITEM_RUNES) : runes;
    const value = headerValue(cut.join(""));
    if (value === undefined) continue;
    if (truncating || written + cut.length <= TOTAL_RUNES) {
      add(cut, value);
      continue;
    }
    // Past the limit: start again with every text so far cut short.
    truncating = true;
    written = 0;
    out = [];
    for (const r of ordered) {
      const short = r.slice(0, ITEM_RUNES);
      const v = headerValue(short.join(""));
      if (v !== undefined) add(short, v);
    }
  }
  return out;
}
