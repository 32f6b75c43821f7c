// The Swagger 2.0 document in gnostic's protobuf form (`application/com.github.proto-openapi.
// spec.v2.v1.0+protobuf`), which clients such as kubectl 1.27 ask for. The JSON document built by
// v2.ts is mapped onto the messages of openapiv2.proto the way gnostic's parser maps JSON: maps
// become repeated name/value pairs in key order, parameters are sorted into body/query/path
// messages by `in`, and `x-` extensions carry their value as YAML text.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { dump } from "js-yaml";
import protobuf from "protobufjs";
import { MAX_BODY_DEPTH } from "../../backends/registry/index.ts";

type Json = Record<string, unknown>;
type Message = Record<string, unknown>;

// Parsed once at load, keeping the .proto's snake_case field names.
const documentType = protobuf
  .parse(readFileSync(fileURLToPath(new URL("./openapiv2.proto", import.meta.url)), "utf8"), {
    keepCase: true,
  })
  .root.lookupType("openapi.v2.Document");

function isObject(value: unknown): value is Json {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

function strings(value: unknown): string[] | undefined {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : undefined;
}

function str(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

/** Only fields with a value, so defaults stay off the wire as in proto3. */
function compact(message: Message): Message {
  const out: Message = {};
  for (const [k, v] of Object.entries(message)) {
    if (v === undefined || v === false || v === "") continue;
    if (Array.isArray(v) && v.length === 0) continue;
    out[k] = v;
  }
  return out;
}

function yamlText(value: unknown): string {
  return dump(value, { lineWidth: -1, noRefs: true });
}

function extensions(object: Json): Message[] {
  return Object.entries(object)
    .filter(([k]) => k.startsWith("x-"))
    .map(([name, value]) => ({ name, value: { yaml: yamlText(value) } }));
}

function schema(s: Json): Message {
  const type = s.type;
  return compact({
    _ref: str(s.$ref),
    description: str(s.description),
    required: strings(s.required),
    type:
      typeof type === "string"
        ? { value: [type] }
        : Array.isArray(type)
          ? { value: strings(type) }
          : undefined,
    items: isObject(s.items)
      ? { schema: [schema(s.items)] }
      : Array.isArray(s.items)
        ? { schema: s.items.filter(isObject).map(schema) }
        : undefined,
    all_of: Array.isArray(s.allOf) ? s.allOf.filter(isObject).map(schema) : undefined,
    properties: isObject(s.properties)
      ? {
          additional_properties: Object.entries(s.properties)
            .filter((e): e is [string, Json] => isObject(e[1]))
            .map(([name, value]) => ({ name, value: schema(value) })),
        }
      : undefined,
    vendor_extension: extensions(s),
  });
}

/** Undefined for parameters gnostic's subset here has no message for (header, formData). */
function parameter(p: Json): Message | undefined {
  const where = str(p.in);
  if (where === "body") {
    return {
      parameter: {
        body_parameter: compact({
          description: str(p.description),
          name: str(p.name),
          in: where,
          required: p.required === true,
          schema: isObject(p.schema) ? schema(p.schema) : undefined,
        }),
      },
    };
  }
  const sub = compact({
    required: p.required === true,
    in: where,
    description: str(p.description),
    name: str(p.name),
    type: str(p.type),
    unique_items: p.uniqueItems === true,
  });
  if (where === "path") return { parameter: { non_body_parameter: { path_parameter_sub_schema: sub } } };
  if (where === "query") return { parameter: { non_body_parameter: { query_parameter_sub_schema: sub } } };
  return undefined;
}

function parameters(value: unknown): Message[] | undefined {
  return Array.isArray(value)
    ? value
        .filter(isObject)
        .map(parameter)
        .filter((p) => p !== undefined)
    : undefined;
}

function operation(op: Json): Message {
  const responses = isObject(op.responses)
    ? {
        response_code: Object.entries(op.responses)
          .filter((e): e is [string, Json] => isObject(e[1]))
          .map(([name, r]) => ({
            name,
            value: {
              response: compact({
                description: str(r.description),
                schema: isObject(r.schema) ? { schema: schema(r.schema) } : undefined,
              }),
            },
          })),
      }
    : undefined;
  return compact({
    tags: strings(op.tags),
    description: str(op.description),
    operation_id: str(op.operationId),
    produces: strings(op.produces),
    consumes: strings(op.consumes),
    parameters: parameters(op.parameters),
    responses,
    schemes: strings(op.schemes),
    vendor_extension: extensions(op),
  });
}

const METHODS = ["get", "put", "post", "delete", "patch"] as const;

function pathItem(item: Json): Message {
  const out: Message = {};
  for (const method of METHODS) {
    const op = item[method];
    if (isObject(op)) out[method] = operation(op);
  }
  const params = parameters(item.parameters);
  if (params && params.length > 0) out.parameters = params;
  return out;
}

function security(value: unknown): Message[] | undefined {
  if (!Array.isArray(value)) return undefined;
  return value.filter(isObject).map((req) => ({
    additional_properties: Object.entries(req).map(([name, scopes]) => ({
      name,
      value: compact({ value: strings(scopes) }),
    })),
  }));
}

function securityDefinitions(value: unknown): Message | undefined {
  if (!isObject(value)) return undefined;
  const items: Message[] = [];
  for (const [name, def] of Object.entries(value)) {
    if (!isObject(def) || def.type !== "apiKey") continue;
    items.push({
      name,
      value: {
        api_key_security: compact({
          type: str(def.type),
          name: str(def.name),
          in: str(def.in),
          description: str(def.description),
        }),
      },
    });
  }
  return { additional_properties: items };
}

/** The protobuf message object of a Swagger 2.0 JSON document. */
export function toV2Message(doc: Json): Message {
  const info = isObject(doc.info)
    ? compact({ title: str(doc.info.title), version: str(doc.info.version) })
    : undefined;
  return compact({
    swagger: str(doc.swagger),
    info,
    paths: isObject(doc.paths)
      ? {
          path: Object.entries(doc.paths)
            .filter((e): e is [string, Json] => isObject(e[1]))
            .map(([name, item]) => ({ name, value: pathItem(item) })),
        }
      : undefined,
    definitions: isObject(doc.definitions)
      ? {
          additional_properties: Object.entries(doc.definitions)
            .filter((e): e is [string, Json] => isObject(e[1]))
            .map(([name, s]) => ({ name, value: schema(s) })),
        }
      : undefined,
    security: security(doc.security),
    security_definitions: securityDefinitions(doc.securityDefinitions),
  });
}

/**
 * protobufjs stops at 100 nested messages, while a CRD's schema may nest up to the object limit,
 * with at most three messages per two levels (Schema, Properties, NamedSchema) or two per level
 * (ItemsItem, Schema); the document is ours, so its depth is known to be bounded (extensions'
 * specs that do not encode are refused before they are merged in, see merge.ts).
 */
const DOCUMENT_RECURSION_LIMIT = 2 * MAX_BODY_DEPTH + 16;

function withRecursionLimit<T>(run: () => T): T {
  const saved = protobuf.util.recursionLimit;
  protobuf.util.recursionLimit = DOCUMENT_RECURSION_LIMIT;
  try {
    return run();
  } finally {
    protobuf.util.recursionLimit = saved;
  }
}

/** The gnostic protobuf encoding of a Swagger 2.0 JSON document. */
export function encodeV2Document(doc: Json): Uint8Array {
  return withRecursionLimit(() => documentType.encode(documentType.fromObject(toV2Message(doc))).finish());
}

/** Decodes bytes back into a plain object (snake_case field names); for tests. */
export function decodeV2Document(bytes: Uint8Array): Message {
  return withRecursionLimit(
    () => documentType.toObject(documentType.decode(bytes), { defaults: false, arrays: false }) as Message,
  );
}
