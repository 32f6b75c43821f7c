// JSON patch (RFC 6902): a list of operations applied in order, all or nothing. Failures are
// JsonPatchError with a message naming the operation, which the caller reports as a bad request
// (or, for a failed `test`, a conflict-free 422 as upstream does).

export class JsonPatchError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "JsonPatchError";
  }
}

/** Upstream caps the operations of one patch; more is refused before anything is applied. */
export const MAX_JSON_PATCH_OPERATIONS = 10_000;

type Json = unknown;
type Container = Record<string, Json> | Json[];

function parsePointer(pointer: string): string[] {
  if (pointer === "") return [];
  if (!pointer.startsWith("/"))
    throw new JsonPatchError(`invalid JSON pointer "${pointer}": must start with "/"`);
  return pointer
    .slice(1)
    .split("/")
    .map((t) => t.replace(/~1/g, "/").replace(/~0/g, "~"));
}

function isContainer(v: Json): v is Container {
  return typeof v === "object" && v !== null;
}

function arrayIndex(token: string, length: number, forInsert: boolean): number {
  if (forInsert && token === "-") return length;
  if (!/^(0|[1-9]\d*)$/.test(token)) throw new JsonPatchError(`invalid array index "${token}"`);
  const i = Number(token);
  if (i > length || (!forInsert && i === length)) throw new JsonPatchError(`array index ${i} out of bounds`);
  return i;
}

/** The container holding the last token of `path`, and that token. */
function locate(doc: Json, tokens: string[], path: string): { parent: Container; key: string } {
  let cur = doc;
  for (const t of tokens.slice(0, -1)) {
    if (!isContainer(cur)) throw new JsonPatchError(`doc is missing path: "${path}"`);
    if (Array.isArray(cur)) cur = cur[arrayIndex(t, cur.length, false)];
    else {
      if (!Object.hasOwn(cur, t)) throw new JsonPatchError(`doc is missing path: "${path}"`);
      cur = cur[t];
    }
  }
  if (!isContainer(cur)) throw new JsonPatchError(`doc is missing path: "${path}"`);
  return { parent: cur, key: tokens[tokens.length - 1] as string };
}

function get(doc: Json, path: string): Json {
  let cur = doc;
  for (const t of parsePointer(path)) {
    if (!isContainer(cur)) throw new JsonPatchError(`doc is missing path: "${path}"`);
    if (Array.isArray(cur)) cur = cur[arrayIndex(t, cur.length, false)];
    else {
      if (!Object.hasOwn(cur, t)) throw new JsonPatchError(`doc is missing path: "${path}"`);
      cur = cur[t];
    }
  }
  return cur;
}

function add(doc: Json, path: string, value: Json): Json {
  const tokens = parsePointer(path);
  if (tokens.length === 0) return value;
  const { parent, key } = locate(doc, tokens, path);
  if (Array.isArray(parent)) parent.splice(arrayIndex(key, parent.length, true), 0, value);
  else parent[key] = value;
  return doc;
}

function remove(doc: Json, path: string): Json {
  const tokens = parsePointer(path);
  if (tokens.length === 0) throw new JsonPatchError("cannot remove the whole document");
  const { parent, key } = locate(doc, tokens, path);
  if (Array.isArray(parent)) parent.splice(arrayIndex(key, parent.length, false), 1);
  else {
    if (!Object.hasOwn(parent, key))
      throw new JsonPatchError(`unable to remove nonexistent key: ${key}: missing value`);
    delete parent[key];
  }
  return doc;
}

function deepEqual(a: Json, b: Json): boolean {
  if (a === b) return true;
  if (!isContainer(a) || !isContainer(b) || Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b))
    return a.length === b.length && a.every((x, i) => deepEqual(x, b[i]));
  const ka = Object.keys(a);
  const kb = Object.keys(b as Record<string, Json>);
  return (
    ka.length === kb.length &&
    ka.every(
      (k) => Object.hasOwn(b, k) && deepEqual((a as Record<string, Json>)[k], (b as Record<string, Json>)[k]),
    )
  );
}

export function applyJsonPatch(document: Json, patch: Json): Json {
  if (!Array.isArray(patch)) throw new JsonPatchError("a JSON patch must be an array of operations");
  if (patch.length > MAX_JSON_PATCH_OPERATIONS) {
    throw new JsonPatchError(
      `The allowed maximum operations in a JSON patch is ${MAX_JSON_PATCH_OPERATIONS}, got ${patch.length}`,
    );
  }
  let doc = structuredClone(document);
  for (const raw of patch) {
    if (!isContainer(raw) || Array.isArray(raw))
      throw new JsonPatchError("each JSON patch operation must be an object");
    const op = raw as Record<string, Json>;
    const path = op.path;
    if (typeof path !== "string")
      throw new JsonPatchError(`operation ${JSON.stringify(op.op)} is missing path`);
    const needValue = () => {
      if (!Object.hasOwn(op, "value"))
        throw new JsonPatchError(`operation ${JSON.stringify(op.op)} is missing value`);
      return structuredClone(op.value);
    };
    const from = () => {
      if (typeof op.from !== "string")
        throw new JsonPatchError(`operation ${JSON.stringify(op.op)} is missing from`);
      return op.from;
    };
    switch (op.op) {
      case "add":
        doc = add(doc, path, needValue());
        break;
      case "remove":
        doc = remove(doc, path);
        break;
      case "replace": {
        const value = needValue();
        get(doc, path);
        doc = parsePointer(path).length === 0 ? value : add(remove(doc, path), path, value);
        break;
      }
      case "move": {
        const src = from();
        if (path.startsWith(`${src}/`))
          throw new JsonPatchError(`cannot move "${src}" into its own child "${path}"`);
        const value = get(doc, src);
        doc = add(remove(doc, src), path, value);
        break;
      }
      case "copy":
        doc = add(doc, path, structuredClone(get(doc, from())));
        break;
      case "test":
        if (!deepEqual(get(doc, path), needValue()))
          throw new JsonPatchError(`testing value ${path} failed: test failed`);
        break;
      default:
        throw new JsonPatchError(`Unexpected kind: ${JSON.stringify(op.op)}`);
    }
  }
  return doc;
}
