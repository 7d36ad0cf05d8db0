// What preview shows is what up does, on the dynamic SDK: every resource of the table
// (test/support/preview-table.ts) created, changed in place, a bucket replaced, each preview's plan
// taken by `up`, no drift after, nothing left after destroy. `make test` runs it as every resource
// family's lifecycle; preview-table-native.test.ts holds the native plugin to the same table.
import { previewTable } from "../support/preview-table";

previewTable("dynamic");
