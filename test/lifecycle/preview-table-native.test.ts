// What preview shows is what up does, on the native plugin: the table of test/support/preview-table.ts
// with each `up` running the plan its preview saved, and a drift repaired under a plan.
import { previewTable } from "../support/preview-table";

previewTable("native");
