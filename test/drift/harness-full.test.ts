// The drift harness, full (make test-full): 1,000+ random out-of-band edits over a dynamic, a
// native and a Python stack each holding every resource type, every kind of the catalog drawn at
// least once, scored against the findings of cloudplatform-drift: precision and recall 1.0. The
// small seed set runs in make test (harness.test.ts). See docs/drift.md ("The drift harness").
import { harnessSuite } from "./harness/suite";

jest.setTimeout(1_800_000);
harnessSuite({ label: "drift-harness-full", base: 2000, rounds: 16, minEdits: 1000, everyKind: true });
