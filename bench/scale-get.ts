// The floor of a refresh's reads for bench/scale-stacks.ts, in a process of its own as a provider
// is: `GET url` N times over 4 keep-alive connections with undici and nothing else (no provider
// code), then one JSON line: the CPU this process spent on them, in seconds.
//   node dist/bench/scale-get.js <url> <api key> <N>
import { Agent, request } from "undici";

async function main(): Promise<void> {
  const [url, apiKey, count] = process.argv.slice(2);
  const agent = new Agent({ connections: 4 });
  const headers = { authorization: `Bearer ${apiKey}` };
  const get = async () => {
    const res = await request(url, { headers, dispatcher: agent });
    await res.body.text();
    if (res.statusCode !== 200) throw new Error(`GET ${url}: ${res.statusCode}`);
  };
  await get();
  let left = Number(count);
  const c0 = process.cpuUsage();
  await Promise.all(Array.from({ length: 4 }, async () => {
    while (left-- > 0) await get();
  }));
  const c = process.cpuUsage(c0);
  await agent.close();
  process.stdout.write(`${JSON.stringify({ cpu: (c.user + c.system) / 1e6 })}\n`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
