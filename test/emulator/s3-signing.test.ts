// The S3 endpoint's parts on their own: SigV4 against the examples AWS publishes for S3 (header,
// presigned and chunked upload, with their signatures), the time rules, listing pages, and the XML
// reader.
import fc from "fast-check";
import { listKeys } from "../../emulator/models/objects";
import { S3Error } from "../../emulator/s3/errors";
import { decodeChunks, readPayload } from "../../emulator/s3/payload";
import { amzDateMs, readClaim, type SignedRequest, verifyClaim } from "../../emulator/s3/sigv4";
import { childText, el, parseXml } from "../../emulator/s3/xml";

// AWS's example credentials and time (S3 API reference, "Signature Calculations for the
// Authorization Header" and "Authenticating Requests: Using Query Parameters").
const SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";
const AKID = "AKIAIOSFODNN7EXAMPLE";
const AT = amzDateMs("20130524T000000Z");
const EMPTY = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

const request = (method: string, path: string, headers: Record<string, string>, query: [string, string][] = []): SignedRequest => ({
  method, path, query, headers: new Map(Object.entries(headers).map(([k, v]) => [k, [v]])),
});
const codeOf = (fn: () => unknown) => {
  try {
    fn();
  } catch (err) {
    return err instanceof S3Error ? err.code : String(err);
  }
  return "no error";
};

const getObject = (signature: string) => request("GET", "/test.txt", {
  host: "examplebucket.s3.amazonaws.com", range: "bytes=0-9", "x-amz-content-sha256": EMPTY, "x-amz-date": "20130524T000000Z",
  authorization: `AWS4-HMAC-SHA256 Credential=${AKID}/20130524/us-east-1/s3/aws4_request,SignedHeaders=host;range;x-amz-content-sha256;x-amz-date,Signature=${signature}`,
});

test("the Authorization header: AWS's GET Object example verifies; a changed signature, header or clock does not", () => {
  const good = getObject("f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41");
  const claim = readClaim(good)!;
  expect(claim).toMatchObject({ kind: "header", amzDate: "20130524T000000Z", payload: EMPTY, scope: { accessKeyId: AKID, region: "us-east-1" } });
  expect(() => verifyClaim(good, claim, SECRET, "us-east-1", AT)).not.toThrow();
  expect(codeOf(() => verifyClaim(good, claim, "another secret", "us-east-1", AT))).toBe("SignatureDoesNotMatch");
  const ranged = { ...good, headers: new Map(good.headers).set("range", ["bytes=0-10"]) };
  expect(codeOf(() => verifyClaim(ranged, readClaim(ranged)!, SECRET, "us-east-1", AT))).toBe("SignatureDoesNotMatch");
  expect(codeOf(() => verifyClaim(good, claim, SECRET, "af-west-1", AT))).toBe("AuthorizationHeaderMalformed");
  // 15 minutes either way, on the server's clock
  expect(() => verifyClaim(good, claim, SECRET, "us-east-1", AT + 15 * 60_000)).not.toThrow();
  expect(codeOf(() => verifyClaim(good, claim, SECRET, "us-east-1", AT + 15 * 60_000 + 1000))).toBe("RequestTimeTooSkewed");
  expect(codeOf(() => verifyClaim(good, claim, SECRET, "us-east-1", AT - 16 * 60_000))).toBe("RequestTimeTooSkewed");
  // malformed claims are named
  expect(codeOf(() => readClaim(request("GET", "/x", { authorization: "AWS AKID:sig" })))).toBe("InvalidRequest");
  expect(codeOf(() => readClaim(request("GET", "/x", { authorization: "AWS4-HMAC-SHA256 Credential=a/b, SignedHeaders=host, Signature=x", "x-amz-content-sha256": EMPTY })))).toBe("AuthorizationHeaderMalformed");
  // a signature that is not hex (here with a two-byte character) is a mismatch, not a crash
  const odd = getObject(`\u00e9${"a".repeat(63)}`);
  expect(codeOf(() => verifyClaim(odd, readClaim(odd)!, SECRET, "us-east-1", AT))).toBe("SignatureDoesNotMatch");
  const noHash = new Map(good.headers);
  noHash.delete("x-amz-content-sha256");
  expect(codeOf(() => readClaim({ ...good, headers: noHash }))).toBe("InvalidRequest");
});

test("presigned: AWS's example URL verifies until X-Amz-Expires has passed, then Request has expired", () => {
  const query: [string, string][] = [
    ["X-Amz-Algorithm", "AWS4-HMAC-SHA256"], ["X-Amz-Credential", `${AKID}/20130524/us-east-1/s3/aws4_request`], ["X-Amz-Date", "20130524T000000Z"],
    ["X-Amz-Expires", "86400"], ["X-Amz-SignedHeaders", "host"], ["X-Amz-Signature", "aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404"],
  ];
  const req = request("GET", "/test.txt", { host: "examplebucket.s3.amazonaws.com" }, query);
  const claim = readClaim(req)!;
  expect(claim).toMatchObject({ kind: "query", payload: "UNSIGNED-PAYLOAD", expiresSeconds: 86400 });
  expect(() => verifyClaim(req, claim, SECRET, "us-east-1", AT + 86_400_000)).not.toThrow();
  try {
    verifyClaim(req, claim, SECRET, "us-east-1", AT + 86_401_000);
    throw new Error("verified");
  } catch (err) {
    expect(err).toMatchObject({ code: "AccessDenied", message: "Request has expired", details: { "X-Amz-Expires": "86400", Expires: "2013-05-25T00:00:00.000Z" } });
  }
  const week = query.map(([k, v]): [string, string] => [k, k === "X-Amz-Expires" ? "604801" : v]);
  expect(codeOf(() => readClaim(request("GET", "/test.txt", {}, week)))).toBe("AuthorizationQueryParametersError");
  expect(codeOf(() => readClaim(request("GET", "/test.txt", {}, query.slice(1))))).toBe("AuthorizationQueryParametersError");
  expect(codeOf(() => readClaim(request("GET", "/test.txt", { authorization: "AWS4-HMAC-SHA256 x" }, query)))).toBe("InvalidArgument");
});

describe("aws-chunked: AWS's chunked PUT Object example (64 KiB and 1 KiB of 'a')", () => {
  const SIGNATURES = {
    seed: "4f232c4386841ef735655705268965c44a0e4690baa4adea153f7db9fa80a0a9",
    chunks: [
      "ad80c730a21e5b8d04586a2213dd63b9a0e99e0e2307b0ade35a65485a288648",
      "0055627c9e194cb4542bae2aa5492e3c1575bbb81b612b7d234b86a503ef5497",
      "b6c6ea8a5354eaf15b3cb7646744f4275b71ea724fed81ceb9323e279d449df9",
    ],
  };
  const headers = {
    host: "s3.amazonaws.com", "x-amz-date": "20130524T000000Z", "x-amz-storage-class": "REDUCED_REDUNDANCY",
    "x-amz-content-sha256": "STREAMING-AWS4-HMAC-SHA256-PAYLOAD", "content-encoding": "aws-chunked",
    "x-amz-decoded-content-length": "66560", "content-length": "66824",
    authorization: `AWS4-HMAC-SHA256 Credential=${AKID}/20130524/us-east-1/s3/aws4_request,SignedHeaders=content-encoding;content-length;host;x-amz-content-sha256;x-amz-date;x-amz-decoded-content-length;x-amz-storage-class,Signature=${SIGNATURES.seed}`,
  };
  const body = (signatures: string[]) => Buffer.concat([
    Buffer.from(`10000;chunk-signature=${signatures[0]}\r\n`), Buffer.alloc(65536, "a"), Buffer.from("\r\n"),
    Buffer.from(`400;chunk-signature=${signatures[1]}\r\n`), Buffer.alloc(1024, "a"), Buffer.from("\r\n"),
    Buffer.from(`0;chunk-signature=${signatures[2]}\r\n\r\n`),
  ]);
  const req = request("PUT", "/examplebucket/chunkObject.txt", headers);

  test("the seed signature verifies and every chunk's signature chains from it", () => {
    const claim = readClaim(req)!;
    const key = verifyClaim(req, claim, SECRET, "us-east-1", AT);
    const raw = body(SIGNATURES.chunks);
    expect(raw.length).toBe(66824);
    const chain = { key, seed: claim.signature, amzDate: claim.amzDate, scope: claim.scope };
    const read = readPayload(raw, claim.payload, req.headers, chain);
    expect(read.body.equals(Buffer.alloc(66560, "a"))).toBe(true);

    const swapped = body([SIGNATURES.chunks[1], SIGNATURES.chunks[0], SIGNATURES.chunks[2]]);
    expect(codeOf(() => readPayload(swapped, claim.payload, req.headers, chain))).toBe("SignatureDoesNotMatch");
    const changed = Buffer.from(raw);
    changed[100] = "b".charCodeAt(0);
    expect(codeOf(() => readPayload(changed, claim.payload, req.headers, chain))).toBe("SignatureDoesNotMatch");
    expect(codeOf(() => readPayload(raw.subarray(0, 70_000 - 4000), claim.payload, req.headers, chain))).toBe("IncompleteBody");
  });

  test("unsigned chunks carry their checksum in a trailer, which is checked", () => {
    const chunked = (crc: string) => Buffer.from(`6\r\nhello \r\n5\r\nworld\r\n0\r\nx-amz-checksum-crc32:${crc}\r\n\r\n`);
    const h = new Map([["x-amz-decoded-content-length", ["11"]], ["x-amz-trailer", ["x-amz-checksum-crc32"]]]);
    const read = readPayload(chunked("DUoRhQ=="), "STREAMING-UNSIGNED-PAYLOAD-TRAILER", h);
    expect([read.body.toString(), read.checksum]).toEqual(["hello world", { algorithm: "crc32", value: "DUoRhQ==" }]);
    expect(codeOf(() => readPayload(chunked("AAAAAA=="), "STREAMING-UNSIGNED-PAYLOAD-TRAILER", h))).toBe("BadDigest");
    expect(codeOf(() => decodeChunks(Buffer.from("zz\r\n"), undefined, false))).toBe("IncompleteBody");
  });
});

test("x-amz-content-sha256, Content-MD5 and CRC32C are checked against the body", () => {
  const none = new Map<string, string[]>();
  const sha = "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824"; // "hello"
  expect(readPayload(Buffer.from("hello"), sha, none).body.toString()).toBe("hello");
  expect(codeOf(() => readPayload(Buffer.from("hellO"), sha, none))).toBe("XAmzContentSHA256Mismatch");
  expect(codeOf(() => readPayload(Buffer.from("hello"), "SOMETHING-ELSE", none))).toBe("InvalidArgument");
  const md5 = (v: string) => new Map([["content-md5", [v]]]);
  expect(readPayload(Buffer.from("hello"), "UNSIGNED-PAYLOAD", md5("XUFAKrxLKna5cZ2REBfFkg==")).integrity).toBe(true);
  expect(codeOf(() => readPayload(Buffer.from("hellO"), "UNSIGNED-PAYLOAD", md5("XUFAKrxLKna5cZ2REBfFkg==")))).toBe("BadDigest");
  expect(codeOf(() => readPayload(Buffer.from("hello"), "UNSIGNED-PAYLOAD", md5("not-md5")))).toBe("InvalidDigest");
  // CRC-32C of "123456789" is 0xe3069283
  const crc32c = new Map([["x-amz-checksum-crc32c", [Buffer.from("e3069283", "hex").toString("base64")]]]);
  expect(readPayload(Buffer.from("123456789"), "UNSIGNED-PAYLOAD", crc32c).checksum?.algorithm).toBe("crc32c");
  expect(codeOf(() => readPayload(Buffer.from("12345678"), "UNSIGNED-PAYLOAD", crc32c))).toBe("BadDigest");
});

test("listing pages, walked by their last key or common prefix, list each key or prefix exactly once, in order", () => {
  const keys = fc.uniqueArray(fc.stringMatching(/^[ab/-]{1,6}$/), { maxLength: 25 });
  fc.assert(
    fc.property(keys, fc.constantFrom("", "a", "a/", "b"), fc.constantFrom(undefined, "/", "-"), fc.integer({ min: 1, max: 5 }), (ks, prefix, delimiter, maxKeys) => {
      const rows = [...ks].sort().map((key) => ({ key }));
      const expected = [...new Set(rows.filter((r) => r.key.startsWith(prefix)).map((r) => {
        const cut = delimiter ? r.key.indexOf(delimiter, prefix.length) : -1;
        return cut >= 0 ? r.key.slice(0, cut + 1) : r.key;
      }))].sort();
      const walked: string[] = [];
      let after: string | undefined;
      for (let pages = 0; pages <= ks.length + 1; pages++) {
        const page = listKeys(rows, { prefix, delimiter, after, maxKeys });
        walked.push(...[...page.prefixes, ...page.contents.map((c) => c.key)].sort());
        expect(page.contents.length + page.prefixes.length).toBeLessThanOrEqual(maxKeys);
        if (!page.truncated) break;
        after = page.last;
      }
      expect(walked).toEqual(expected);
    }),
    { numRuns: 300 },
  );
});

test("the XML reader: entities, CDATA, namespaces; anything not well-formed is MalformedXML", () => {
  const doc = parseXml(`<?xml version="1.0" encoding="UTF-8"?>
    <s3:Delete xmlns:s3="http://s3.amazonaws.com/doc/2006-03-01/"><!-- keys -->
      <Object><Key>a&amp;b &lt;c&gt; &#x0D;&#10;&quot;</Key></Object>
      <Object><Key><![CDATA[x<y]]></Key></Object><Quiet>true</Quiet>
    </s3:Delete>`);
  expect(doc.name).toBe("Delete");
  expect(doc.children.filter((c) => c.name === "Object").map((o) => childText(o, "Key"))).toEqual(['a&b <c> \r\n"', "x<y"]);
  expect(childText(doc, "Quiet")).toBe("true");
  expect(parseXml(el("Key", "a&b <c>\r")).text).toBe("a&b <c>\r");
  for (const bad of ["<a><b></a></b>", "<a>", "text", "<a></a><b></b>", "<a>&nope;</a>", "<a>1 < 2</a>", "<a>&#99999999;</a>", "<a>&#x110000;</a>", ""]) {
    expect(codeOf(() => parseXml(bad))).toBe("MalformedXML");
  }
});
