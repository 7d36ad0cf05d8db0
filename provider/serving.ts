// Settings for a process that exists to serve the provider: Pulumi's dynamic-provider host and
// the native plugin.
import { setFlagsFromString } from "node:v8";

/**
 * undici parses HTTP with llhttp compiled to WebAssembly, and V8 compiles that module twice: at once
 * with its baseline compiler (Liftoff), then again in the background with its optimizing one, whose
 * transient allocations add about 30 MB to the peak RSS of a process that only makes API calls
 * (bench P6). Baseline code parses API responses fast enough. Must run before the first request.
 */
export function servingProcess(): void {
  setFlagsFromString("--liftoff-only");
}
