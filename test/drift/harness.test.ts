// The drift harness: random out-of-band edits through the API over a dynamic, a native and a Python
// stack each holding every resource type, scored against the findings of cloudplatform-drift:
// precision and recall 1.0. The whole suite (make test-full, so CI) runs 1,000+ edits with every
// kind of the catalog drawn at least once; make test runs a small seed set (DRIFT_HARNESS=small).
// See test/drift/harness/ and docs/drift.md ("The drift harness").
import { harnessSuite } from "./harness/suite";

jest.setTimeout(1_800_000);
harnessSuite(process.env.DRIFT_HARNESS === "small"
  ? { label: "drift-harness", base: 1000, rounds: 3, minEdits: 150 }
  : { label: "drift-harness-full", base: 2000, rounds: 16, minEdits: 1000, everyKind: true });
