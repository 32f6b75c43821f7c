// Table columns of the discovery group: EndpointSlice.
import type { TableColumn } from "../../schema/resource-schema.ts";
import {
  age,
  arr,
  asObject,
  asString,
  col,
  type GroupColumns,
  int,
  listWithMore,
  present,
  str,
} from "./helpers.ts";

const SHOWN = 3;

const endpointSliceColumns: TableColumn[] = [
  col("string", "AddressType", "The kind of addresses the slice holds: IPv4, IPv6 or FQDN.", (o) =>
    str(o, "addressType"),
  ),
  col("string", "Ports", "The slice's ports (a number, else a name, else *).", (o) =>
    listWithMore(
      arr(o, "ports").map((p) => {
        const port = asObject(p) ?? {};
        if (present(port, "port")) return String(int(port.port));
        if (present(port, "name")) return asString(port.name);
        return "*";
      }),
      SHOWN,
    ),
  ),
  col("string", "Endpoints", "The first few endpoint addresses.", (o) =>
    listWithMore(
      arr(o, "endpoints").flatMap((e) => arr(e, "addresses").map(asString)),
      SHOWN,
    ),
  ),
  age(),
];

export function discoveryColumns(): GroupColumns {
  return new Map<string, readonly TableColumn[]>([["endpointslices", endpointSliceColumns]]);
}
