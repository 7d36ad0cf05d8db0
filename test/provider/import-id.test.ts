// The import id suffix `?omit=`: written by cloudplatform-adopt, read by the provider, through one
// parser that splits at the last marker. Any id round-trips, one holding the marker itself included.
import fc from "fast-check";
import { buildImportFile, servicesToComplete } from "../../provider/adopt/importFile";
import { OMIT_MARKER, parseImportId, withOmit } from "../../provider/importId";

/** Input names: identifiers, as a resource's inputs are. */
const inputName = fc.stringMatching(/^[A-Za-z][A-Za-z0-9]{0,15}$/);
/** Platform ids: any text, often with the marker (or pieces of it) inside. */
const platformId = fc.oneof(
  fc.string(),
  fc.tuple(fc.string(), fc.string()).map(([a, b]) => `${a}${OMIT_MARKER}${b}`),
  fc.array(fc.constantFrom("?", "omit", "=", ",", "/", "@", "a", OMIT_MARKER)).map((parts) => parts.join("")),
);

test("any id with any list of inputs round-trips", () => {
  fc.assert(
    fc.property(platformId, fc.uniqueArray(inputName, { maxLength: 5 }), (id, omit) => {
      expect(parseImportId(withOmit(id, omit))).toEqual({ bare: id, omit });
    }),
    { numRuns: 2_000 },
  );
});

test("an id without a suffix is left as it is", () => {
  fc.assert(
    fc.property(fc.string().filter((s) => !s.includes(OMIT_MARKER)), (id) => {
      expect(withOmit(id, [])).toBe(id);
      expect(parseImportId(id)).toEqual({ bare: id, omit: [] });
    }),
  );
});

test("a suppression whose address holds the marker keeps its whole id (the first marker would cut it)", () => {
  const id = "ws-1/a?omit=b@example.com";
  const written = withOmit(id, ["envVars"]);
  expect(parseImportId(written)).toEqual({ bare: id, omit: ["envVars"] });
  expect(written.split(OMIT_MARKER)[0]).not.toBe(id);
});

test("adopt's import file names the services whose secrets it left out, with the ids it wrote", () => {
  const file = buildImportFile({
    workspaceId: "ws-1",
    skipped: [],
    items: [
      { kind: "Service", key: "Service:s1", importId: "s1", parts: ["web"], leaveOut: ["envVars", "secretFiles"], tiebreak: "s1" },
      { kind: "Service", key: "Service:s2", importId: "s2", parts: ["worker"], tiebreak: "s2" },
    ],
  } as Parameters<typeof buildImportFile>[0]);
  expect(file.resources.map((r) => r.id)).toEqual(["s1?omit=envVars,secretFiles", "s2"]);
  expect(servicesToComplete(file)).toEqual([{ name: file.resources[0].name, serviceId: "s1", inputs: ["envVars", "secretFiles"] }]);
});
