// The dashboard's static files: the page, its scripts and styles (emulator/dashboard/ui, copied
// into dist by the build), and lit-html's browser modules from the installed package. Nothing is
// fetched from elsewhere at run time.
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";

export interface Asset {
  contentType: string;
  body: Buffer;
}

const UI_DIR = join(__dirname, "ui");
const TYPES: Record<string, string> = {
  html: "text/html; charset=utf-8",
  js: "text/javascript; charset=utf-8",
  css: "text/css; charset=utf-8",
  svg: "image/svg+xml",
};
/** A flat file name of the UI (`app.js`), or a module path inside lit-html (`directives/repeat.js`). */
const UI_FILE = /^[a-z0-9-]+\.(html|js|css|svg)$/;
const VENDOR_FILE = /^(directives\/)?[a-z0-9-]+\.js$/;

const cache = new Map<string, Asset | null>();

function load(file: string): Asset | null {
  if (!cache.has(file)) {
    const type = TYPES[file.split(".").pop()!];
    cache.set(file, existsSync(file) ? { contentType: type, body: readFileSync(file) } : null);
  }
  return cache.get(file)!;
}

/** A file of the UI by name, or null; throws when the UI was not built into this copy of the package. */
export function uiAsset(name: string): Asset | null {
  if (!existsSync(join(UI_DIR, "index.html"))) {
    throw new Error(`The dashboard's files are missing from ${UI_DIR}: build the package with \`make build\` (it copies emulator/dashboard/ui)`);
  }
  return UI_FILE.test(name) ? load(join(UI_DIR, name)) : null;
}

let litRoot: string | undefined;

/** lit-html's installed package directory: its browser build sits at the root, the Node build in node/. */
function litHtmlRoot(): string {
  if (litRoot) return litRoot;
  for (let dir = dirname(require.resolve("lit-html")); dir !== dirname(dir); dir = dirname(dir)) {
    const manifest = join(dir, "package.json");
    if (existsSync(manifest) && JSON.parse(readFileSync(manifest, "utf8")).name === "lit-html") return (litRoot = dir);
  }
  throw new Error("lit-html's package directory was not found next to its entry point");
}

/** A browser module of lit-html (`lit-html.js`, `directives/repeat.js`), or null. */
export function vendorAsset(path: string): Asset | null {
  return VENDOR_FILE.test(path) ? load(join(litHtmlRoot(), path)) : null;
}
