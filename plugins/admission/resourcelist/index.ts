// Resource lists (resource name → quantity) and their arithmetic, as ResourceQuota and LimitRanger
// use them.

export { addLists, maxInto, prettyPrint, subtractLists } from "./lists.ts";
export * as quantities from "./quantity.ts";
