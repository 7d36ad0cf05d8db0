// The resource registry loads each kind's module on first use (the dynamic provider host then holds
// only the kinds a program declares), and loadAll gives the plugin and the schema the whole catalogue.
import { readFileSync } from "node:fs";
import { join } from "node:path";

const schema = JSON.parse(readFileSync(join(__dirname, "..", "..", "schema.json"), "utf8"));
// Components are built by the plugin's Construct, not served by a resource handler.
const custom = Object.keys(schema.resources).filter((t) => !schema.resources[t].isComponent);

test("a kind's module loads when the kind is first used; loadAll registers every function", () => {
  jest.isolateModules(() => {
    const { resources, loadAll } = require("../../provider/resources");
    const { functions } = require("../../provider/functions");
    expect(Object.keys(resources)).toHaveLength(custom.length);
    expect(Object.keys(functions)).toEqual([]);

    expect(resources.Project.token).toBe("cloudplatform:index:Project");
    expect(Object.keys(functions)).toContain("getProject");
    expect(Object.keys(functions)).not.toContain("getBucket");
    expect(Object.keys(functions)).not.toContain("getMailDomain");

    loadAll();
    const tokens = Object.values(functions).map((f: any) => f.token).sort();
    expect(tokens).toEqual(Object.keys(schema.functions).sort());
    expect(Object.values(resources).map((r: any) => r.token).sort()).toEqual(custom.sort());
  });
});
