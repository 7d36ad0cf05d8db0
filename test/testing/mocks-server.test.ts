// The mocks server (`pulumi-resource-cloudplatform --mocks`, for the Python SDK): JSON lines in and
// out, answered by the platform setCloudPlatformMocks uses; bad requests get an error line, a line
// over the cap ends it.
import { PassThrough } from "node:stream";
import { MAX_LINE, serveMocks } from "../../testing/mocksServer";

function server() {
  const input = new PassThrough();
  const output = new PassThrough();
  const done = serveMocks(input, output);
  const lines: Record<string, any>[] = [];
  let buffered = "";
  output.on("data", (d) => {
    buffered += String(d);
    for (let nl; (nl = buffered.indexOf("\n")) >= 0; buffered = buffered.slice(nl + 1)) lines.push(JSON.parse(buffered.slice(0, nl)));
  });
  return { input, lines, done };
}

test("check's message for a bad input, the platform's outputs for a good one, functions from the declared answers", async () => {
  const s = server();
  const send = (o: object) => s.input.write(`${JSON.stringify(o)}\n`);
  send({ id: 0, op: "init", options: { project: "p", stack: "s", functions: { getBucket: [{ name: "legacy", visibility: "PRIVATE" }] } } });
  send({ id: 1, op: "newResource", args: { type: "cloudplatform:index:DnsRecord", name: "r", inputs: { zoneId: "z", name: "www", type: "A", content: "not-an-ip" } } });
  send({ id: 2, op: "newResource", args: { type: "cloudplatform:index:Project", name: "site", inputs: { name: "site" } } });
  send({ id: 3, op: "newResource", args: { type: "aws:s3:Bucket", name: "x", inputs: {} } });
  send({ id: 4, op: "call", args: { token: "cloudplatform:index:getBucket", args: { name: "legacy" } } });
  send({ id: 5, op: "call", args: { token: "cloudplatform:index:getEnvironment", args: { environmentId: "0b6f1c2e-0000-4000-a000-000000000000" } } });
  s.input.write("not json\n");
  send({ id: 6, op: "delete" });
  s.input.end();
  await s.done;
  const [init, bad, good, other, bucket, none, notJson, unknown] = s.lines;
  expect(init).toEqual({ id: 0, result: null });
  expect(bad).toEqual({ id: 1, error: "cloudplatform:index:DnsRecord resource 'r' has a problem: content: 'not-an-ip' is not an IPv4 address (an A record holds one, e.g. 203.0.113.10)" });
  expect(good.result.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4/);
  expect(good.result.state).toMatchObject({ name: "site", region: "af-west-1", paused: false });
  expect(other).toEqual({ id: 3, result: null });
  expect(bucket.result).toMatchObject({ name: "legacy", visibility: "PRIVATE", publicBaseUrl: null });
  expect(none.error).toMatch(/^getEnvironment\(.*\): no answer; declare it/);
  expect(notJson).toEqual({ error: "cloudplatform mocks: a request is not JSON" });
  expect(unknown).toEqual({ id: 6, error: 'unknown request "delete"' });
});

test("a request line over the cap ends the server", async () => {
  const s = server();
  s.input.write("x".repeat(MAX_LINE + 1));
  await expect(s.done).rejects.toThrow(`cloudplatform mocks: a request line is over ${MAX_LINE} bytes`);
  s.input.destroy();
});
