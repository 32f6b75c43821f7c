// Detached signatures against upstream's published values (cluster-bootstrap's own expectations
// for these inputs), so a node checking with upstream's code accepts ours.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { detachedSignature, detachedSignatureIsValid } from "./jws.ts";

const CONTENT = "Hello from the other side. I must have called a thousand times.";
const SECRET = "my voice is my passcode";
const ID = "joshua";
const HEADER = "eyJhbGciOiJIUzI1NiIsImtpZCI6Impvc2h1YSJ9";

describe("detached JWS", () => {
  it("gives upstream's signatures, secrets shorter than 32 bytes zero-padded", async () => {
    assert.equal(
      await detachedSignature(CONTENT, ID, SECRET),
      `${HEADER}..VShe2taLd-YTrmWuRkcL_8QTNDHYxQIEBsAYYiIj1_8`,
    );
    assert.equal(
      await detachedSignature("", ID, SECRET),
      `${HEADER}..7Ui1ALizW4jXphVUB7xUqC9vLYLL9RZeOFfVLoB7Tgk`,
    );
    assert.equal(
      await detachedSignature(CONTENT, ID, ""),
      `${HEADER}..UfkqvDGiIFxrMnFseDj9LYJOLNrvjW8aHhF71mvvAs8`,
    );
    assert.deepEqual(JSON.parse(Buffer.from(HEADER, "base64url").toString()), { alg: "HS256", kid: ID });
  });

  it("accepts only the signature of this content and token", async () => {
    const sig = await detachedSignature(CONTENT, ID, SECRET);
    assert.ok(await detachedSignatureIsValid(sig, CONTENT, ID, SECRET));
    assert.ok(!(await detachedSignatureIsValid(`${sig}x`, CONTENT, ID, SECRET)));
    assert.ok(!(await detachedSignatureIsValid(sig, `${CONTENT} `, ID, SECRET)));
    assert.ok(!(await detachedSignatureIsValid(sig, CONTENT, "joshub", SECRET)));
    assert.ok(!(await detachedSignatureIsValid(sig, CONTENT, ID, "my voice is not my passcode")));
  });
});
