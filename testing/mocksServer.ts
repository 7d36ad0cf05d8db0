// The unit-test mocks for other languages' SDKs (the Python SDK's set_cloudplatform_mocks): the
// same platform as setCloudPlatformMocks (check, outputs, function answers), served one JSON
// request a line on stdin, one answer a line on stdout. `pulumi-resource-cloudplatform --mocks`
// runs it.
//   {"op":"init","options":{"project":"p","stack":"s","functions":{"getBucket":[...]}}}
//   {"id":1,"op":"newResource","args":{"type":"cloudplatform:index:Bucket","name":"b","inputs":{...}}}
//   {"id":2,"op":"call","args":{"token":"cloudplatform:index:getProject","args":{...}}}
// Answers: {"id":1,"result":{"id":"b","state":{...}}} (result null: not a cloudplatform type), or
// {"id":1,"error":"<check's message>"}.
import { createMockPlatform, type MockPlatform } from "./mockPlatform";

/** A request line longer than this ends the server: the parent sends resource inputs, never this much. */
export const MAX_LINE = 16 << 20;

type Request = { id?: number; op?: string; options?: Record<string, any>; args?: Record<string, any> };

export async function answer(platform: MockPlatform, req: Request): Promise<unknown> {
  const a = req.args ?? {};
  switch (req.op) {
    case "newResource":
      return (await platform.newResource({ type: String(a.type), name: String(a.name), inputs: a.inputs ?? {}, id: a.id || undefined, custom: a.custom })) ?? null;
    case "call":
      return platform.call(String(a.token), a.args ?? {});
    default:
      throw new Error(`unknown request ${JSON.stringify(req.op)}`);
  }
}

/** Serves requests from `input` until it ends, one at a time in order. */
export function serveMocks(input: NodeJS.ReadableStream = process.stdin, output: NodeJS.WritableStream = process.stdout): Promise<void> {
  let platform = createMockPlatform();
  let buffered = "";
  let queue = Promise.resolve();
  const reply = (o: object) => {
    output.write(`${JSON.stringify(o)}\n`);
  };
  const handle = async (line: string): Promise<void> => {
    let req: Request;
    try {
      req = JSON.parse(line);
    } catch {
      return reply({ error: "cloudplatform mocks: a request is not JSON" });
    }
    if (req.op === "init") {
      platform = createMockPlatform(req.options ?? {});
      return reply({ id: req.id ?? 0, result: null });
    }
    try {
      reply({ id: req.id, result: await answer(platform, req) });
    } catch (err) {
      reply({ id: req.id, error: (err as Error)?.message ?? String(err) });
    }
  };
  return new Promise((resolve, reject) => {
    input.setEncoding("utf8");
    input.on("data", (chunk: string) => {
      buffered += chunk;
      let nl: number;
      while ((nl = buffered.indexOf("\n")) >= 0) {
        const line = buffered.slice(0, nl);
        buffered = buffered.slice(nl + 1);
        if (line.trim()) queue = queue.then(() => handle(line));
      }
      if (buffered.length > MAX_LINE) reject(new Error(`cloudplatform mocks: a request line is over ${MAX_LINE} bytes`));
    });
    input.on("end", () => queue.then(() => resolve()));
    input.on("error", reject);
  });
}
