// Min, max and limit-to-request ratio checks of one resource, with upstream's messages. Values are
// compared as upstream does: in whole thousandths rounded up, or in whole units when that could
// overflow.
import { quantities } from "../resourcelist/index.ts";

type Quantity = quantities.Quantity;
type ResourceList = quantities.ResourceList;

const MAX_MILLI_VALUE = ((1n << 63n) - 1n) / 1000n;

function comparable(...values: (Quantity | undefined)[]): bigint[] {
  const whole = values.map((q) => (q ? quantities.scaledCeil(q, 0) : 0n));
  if (whole.every((v) => v <= MAX_MILLI_VALUE))
    return values.map((q) => (q ? quantities.scaledCeil(q, 3) : 0n));
  return whole;
}

const show = (q: Quantity) => quantities.text(q);

export function minConstraint(
  type: string,
  name: string,
  enforced: Quantity,
  requests: ResourceList,
  limits: ResourceList,
): string | undefined {
  const req = requests.get(name);
  const lim = limits.get(name);
  const [r, l, e] = comparable(req, lim, enforced) as [bigint, bigint, bigint];
  if (!req) return `minimum ${name} usage per ${type} is ${show(enforced)}.  No request is specified`;
  if (r < e) return `minimum ${name} usage per ${type} is ${show(enforced)}, but request is ${show(req)}`;
  if (lim && l < e)
    return `minimum ${name} usage per ${type} is ${show(enforced)}, but limit is ${show(lim)}`;
  return undefined;
}

/** Max against requests only: claims state no limits. */
export function maxRequestConstraint(
  type: string,
  name: string,
  enforced: Quantity,
  requests: ResourceList,
): string | undefined {
  const req = requests.get(name);
  const [r, , e] = comparable(req, undefined, enforced) as [bigint, bigint, bigint];
  if (!req) return `maximum ${name} usage per ${type} is ${show(enforced)}.  No request is specified`;
  if (r > e) return `maximum ${name} usage per ${type} is ${show(enforced)}, but request is ${show(req)}`;
  return undefined;
}

export function maxConstraint(
  type: string,
  name: string,
  enforced: Quantity,
  requests: ResourceList,
  limits: ResourceList,
): string | undefined {
  const req = requests.get(name);
  const lim = limits.get(name);
  const [r, l, e] = comparable(req, lim, enforced) as [bigint, bigint, bigint];
  if (!lim) return `maximum ${name} usage per ${type} is ${show(enforced)}.  No limit is specified`;
  if (l > e) return `maximum ${name} usage per ${type} is ${show(enforced)}, but limit is ${show(lim)}`;
  if (req && r > e)
    return `maximum ${name} usage per ${type} is ${show(enforced)}, but request is ${show(req)}`;
  return undefined;
}

export function ratioConstraint(
  type: string,
  name: string,
  enforced: Quantity,
  requests: ResourceList,
  limits: ResourceList,
): string | undefined {
  const req = requests.get(name);
  const lim = limits.get(name);
  const [r, l] = comparable(req, lim, enforced) as [bigint, bigint, bigint];
  const head = `${name} max limit to request ratio per ${type} is ${show(enforced)}`;
  if (!req || r === 0n) return `${head}, but no request is specified or request is 0`;
  if (!lim || l === 0n) return `${head}, but no limit is specified or limit is 0`;
  const observed = Number(l) / Number(r);
  const whole = quantities.scaledCeil(enforced, 0);
  const exceeds =
    whole <= MAX_MILLI_VALUE
      ? observed * 1000 > Number(quantities.scaledCeil(enforced, 3))
      : observed > Number(whole);
  return exceeds ? `${head}, but provided ratio is ${observed.toFixed(6)}` : undefined;
}

/** Upstream's aggregate error text: one message as is, several deduplicated inside brackets. */
export function aggregate(messages: readonly string[]): string | undefined {
  const unique = [...new Set(messages)];
  if (unique.length === 0) return undefined;
  if (unique.length === 1) return unique[0];
  return `[${unique.join(", ")}]`;
}
