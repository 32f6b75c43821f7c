// Table columns of the certificates group: CertificateSigningRequest.
import type { TableColumn } from "../../schema/resource-schema.ts";
import {
  age,
  arr,
  asObject,
  asString,
  col,
  type GroupColumns,
  humanDuration,
  int,
  type JsonObject,
  present,
  spec,
  str,
} from "./helpers.ts";

/** Approved, Denied or Pending, then `,Failed` and `,Issued` as they apply. */
function condition(csr: JsonObject): string {
  const types = new Set(arr(csr, "status", "conditions").map((c) => asString(asObject(c)?.type)));
  let text = types.has("Denied") ? "Denied" : types.has("Approved") ? "Approved" : "Pending";
  if (types.has("Failed")) text += ",Failed";
  if (str(csr, "status", "certificate") !== "") text += ",Issued";
  return text;
}

const csrColumns: TableColumn[] = [
  age(),
  col(
    "string",
    "SignerName",
    "The signer asked to sign the certificate.",
    (o) => str(o, "spec", "signerName") || "<none>",
  ),
  col("string", "Requestor", "The user who made the request.", (o) => str(o, "spec", "username")),
  col("string", "RequestedDuration", "The validity period the requester asked for.", (o) =>
    present(spec(o), "expirationSeconds") ? humanDuration(int(spec(o).expirationSeconds) * 1000) : "<none>",
  ),
  col(
    "string",
    "Condition",
    "Whether the request was approved or denied, and whether it was issued.",
    condition,
  ),
];

export function certificatesColumns(): GroupColumns {
  return new Map<string, readonly TableColumn[]>([["certificatesigningrequests", csrColumns]]);
}
