// Name rules the CRD validation needs beyond backends/validation/names.ts, with upstream's texts.
import { maxLenError, regexError } from "../validation/names.ts";

const DNS1035_LABEL_FMT = "[a-z]([-a-z0-9]*[a-z0-9])?";
const DNS1035_LABEL_MSG =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character";
const DNS1035_LABEL = new RegExp(`^${DNS1035_LABEL_FMT}$`);

/** A DNS-1035 label (version names, plural/singular names, short names, categories). */
export function isDNS1035Label(value: string): string[] {
  const errs: string[] = [];
  if (value.length > 63) errs.push(maxLenError(63));
  if (!DNS1035_LABEL.test(value))
    errs.push(regexError(DNS1035_LABEL_MSG, DNS1035_LABEL_FMT, "my-name", "abc-123"));
  return errs;
}

/** A TCP/UDP port number. */
export function isValidPortNum(port: number): string[] {
  return Number.isInteger(port) && port >= 1 && port <= 65535
    ? []
    : ["must be between 1 and 65535, inclusive"];
}
