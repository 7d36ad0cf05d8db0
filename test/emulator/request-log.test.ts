// The dashboard's request log: a bounded ring that hands out what is new, and never keeps a
// credential (query values that carry one, and key-shaped text, are masked).
import { credentialKind, RequestLog, safePath } from "../../emulator/request-log";

const entry = (n: number) => ({ method: "GET", url: `/v1/things/${n}`, route: "/v1/things/:id", status: 200, ms: 1.234, requestId: `req_${n}` });

test("the ring keeps the newest entries, and `since` gives what came after a seq, oldest first", () => {
  const log = new RequestLog(3);
  expect(log.last).toBe(0);
  expect(log.since(0)).toEqual([]);
  for (let n = 1; n <= 5; n++) log.add(entry(n));
  expect(log.last).toBe(5);
  expect(log.since(0).map((e) => e.seq)).toEqual([3, 4, 5]);
  expect(log.since(3).map((e) => e.path)).toEqual(["/v1/things/4", "/v1/things/5"]);
  expect(log.since(5)).toEqual([]);
  expect(log.since(0, 2).map((e) => e.seq)).toEqual([4, 5]);
  const [e] = log.since(4);
  expect(e).toMatchObject({ seq: 5, method: "GET", route: "/v1/things/:id", status: 200, ms: 1.2, requestId: "req_5", credential: null });
  expect(Date.parse(e.at)).not.toBeNaN();
  // Wrapping many times over keeps exactly `capacity` entries in order.
  for (let n = 6; n <= 1_000; n++) log.add(entry(n));
  expect(log.since(0).map((x) => x.seq)).toEqual([998, 999, 1000]);
});

test("query values that can carry a credential are masked; other values and names stay", () => {
  expect(safePath("/_uploads/u1?expires=1700000000&signature=0123456789abcdef0123456789abcdef"))
    .toBe("/_uploads/u1?expires=1700000000&signature=***");
  expect(safePath("/_storage/af-west-1/b/k.txt?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKID%2F20250101%2Fx&X-Amz-Signature=abc&X-Amz-Expires=60"))
    .toBe("/_storage/af-west-1/b/k.txt?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=***&X-Amz-Signature=***&X-Amz-Expires=60");
  expect(safePath("/v1/x?token=t&access_token=a&api_key=k&password=p&key=k&sig=s&region=af-west-1&limit=5"))
    .toBe("/v1/x?token=***&access_token=***&api_key=***&password=***&key=***&sig=***&region=af-west-1&limit=5");
  expect(safePath("/_storage/r/b?list-type=2&max-keys=100&prefix=a%2F&continuation-token=abc"))
    .toBe("/_storage/r/b?list-type=2&max-keys=100&prefix=a%2F&continuation-token=***");
  expect(safePath("/v1/projects")).toBe("/v1/projects");
  expect(safePath("/v1/x?flag")).toBe("/v1/x?flag");
  // A key pasted into a path (or an encoded header echoed into one) is masked wherever it starts.
  expect(safePath("/v1/Bearer%20svc_live_abcdefghijklmnopqrstuvwxyz012345/x")).toBe("/v1/Bearer%20svc_live_***/x");
  expect(safePath("/v1/x?q=mail_test_ABCDEFGHIJ0123456789")).toBe("/v1/x?q=mail_test_***");
});

test("the credential is told by its kind only", () => {
  expect(credentialKind("Bearer svc_live_abc", "/v1/me")).toBe("svc_live");
  expect(credentialKind("bearer  mail_test_abc", "/v1/emails")).toBe("mail_test");
  expect(credentialKind("Bearer sess_abc", "/graphql")).toBe("session");
  expect(credentialKind("Bearer opaque", "/v1/me")).toBe("bearer");
  expect(credentialKind("AWS4-HMAC-SHA256 Credential=AKID/20250101/af-west-1/s3/aws4_request, Signature=abc", "/_storage/r/b")).toBe("sigv4");
  expect(credentialKind("Basic dXNlcjpwYXNz", "/x")).toBe("basic");
  expect(credentialKind(undefined, "/_storage/r/b/k?X-Amz-Signature=abc")).toBe("presigned");
  expect(credentialKind(undefined, "/_sites/landing/")).toBeNull();
});
