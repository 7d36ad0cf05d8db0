// The dynamic provider of Project, as a module of its own: state then refers to it by package name
// (require("pulumi-cloudplatform/provider/dynamic/Project")) instead of carrying its code.
import { providerFor } from "./providerFor";

export = providerFor("Project");
