// The drift harness, small (make test): a fixed set of seeds over a dynamic, a native and a Python
// stack each holding every resource type; random out-of-band edits through the API scored against
// the findings of cloudplatform-drift (precision and recall 1.0). harness-full.test.ts runs 1,000+
// edits. See test/drift/harness/ and docs/drift.md ("The drift harness").
import { harnessSuite } from "./harness/suite";

jest.setTimeout(900_000);
harnessSuite({ label: "drift-harness", base: 1000, rounds: 3, minEdits: 150 });
