// Entry point of pulumi-resource-cloudplatform. The engine starts it with its own address as an
// argument (after any flags) and reads the port to dial from the first line of stdout.
import { servingProcess } from "../serving";
import { serve } from "./server";

export async function main(argv: string[] = process.argv.slice(2)): Promise<void> {
  servingProcess();
  const engineAddress = argv.find((a) => !a.startsWith("-"));
  const { port } = await serve(engineAddress);
  process.stdout.write(`${port}\n`);
}

if (require.main === module) {
  main().catch((err) => {
    process.stderr.write(`pulumi-resource-cloudplatform: ${err?.message ?? err}\n`);
    process.exit(1);
  });
}
