// Node selectors as the plugin's configuration and namespace annotation spell them:
// `key=value,key2=value2` (upstream's labels.ConvertSelectorToLabelsMap), with its error texts.

import { isQualifiedName, isValidLabelValue } from "../../../backends/validation/index.ts";

export type LabelMap = Readonly<Record<string, string>>;

export class SelectorError extends Error {}

/** `a=b,c=d` as a map; "" is the empty map. Throws a SelectorError with upstream's text. */
export function parseNodeSelector(text: string): LabelMap {
  const out: Record<string, string> = {};
  if (text === "") return out;
  for (const label of text.split(",")) {
    const parts = label.split("=");
    if (parts.length !== 2) throw new SelectorError(`invalid selector: [${parts.join(" ")}]`);
    const key = (parts[0] ?? "").trim();
    const kerrs = isQualifiedName(key);
    if (kerrs.length > 0) throw new SelectorError(`key: Invalid value: "${key}": ${kerrs.join("; ")}`);
    const value = (parts[1] ?? "").trim();
    const verrs = isValidLabelValue(value);
    if (verrs.length > 0) throw new SelectorError(`value: Invalid value: "${value}": ${verrs.join("; ")}`);
    out[key] = value;
  }
  return out;
}

/** Whether a key is in both maps with different values. */
export function conflicts(a: LabelMap, b: LabelMap): boolean {
  return Object.keys(a).some((k) => Object.hasOwn(b, k) && b[k] !== a[k]);
}
