// Writes the emulator's GraphQL schema, as served, into the ```graphql block of
// docs/api-assumptions.md. `make schema` runs it; test/emulator/graphql.test.ts fails when stale.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { printedSchema } from "../emulator/graphql/schema";

const file = join(__dirname, "../../docs/api-assumptions.md");
const doc = readFileSync(file, "utf8");
const block = /```graphql\n[\s\S]*?```/;
if (!block.test(doc)) throw new Error(`${file} has no \`\`\`graphql block to fill`);
writeFileSync(file, doc.replace(block, () => "```graphql\n" + printedSchema().trimEnd() + "\n```"));
