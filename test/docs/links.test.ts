// Every relative link and anchor in the project's Markdown points at something that exists: a file
// or folder of the repository, and, for `#anchor`, a heading of that file under GitHub's slug rules.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

const ROOT = resolve(__dirname, "../..");

function markdownUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (name === "node_modules") return [];
    if (statSync(path).isDirectory()) return markdownUnder(path);
    return name.endsWith(".md") ? [path] : [];
  });
}

const FILES = [
  ...["README.md", "CONTRIBUTING.md", "CHANGELOG.md", "bench/README.md", "examples/README.md"].map((f) => join(ROOT, f)).filter(existsSync),
  ...markdownUnder(join(ROOT, "docs")),
  ...readdirSync(join(ROOT, "examples")).map((d) => join(ROOT, "examples", d, "README.md")).filter(existsSync),
];

/** The text outside fenced code blocks and inline code, where Markdown links live. */
export function prose(text: string): string {
  return text.replace(/^( {0,3})(```|~~~)[^\n]*\n[\s\S]*?^\1\2[^\n]*$/gm, "").replace(/`[^`\n]*`/g, "``");
}

/** GitHub's heading anchor: lower case, punctuation dropped (letters, digits, `_`, `-` and spaces kept), spaces to dashes. */
export function slug(heading: string): string {
  const text = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1") // a link's text only
    .replace(/<[^>]+>/g, "");
  return text.trim().toLowerCase().replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, "").replace(/ /g, "-");
}

/** Every anchor a file's headings make, with GitHub's -1, -2 suffixes for repeated ones. */
export function anchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  const withoutFences = text.replace(/^( {0,3})(```|~~~)[^\n]*\n[\s\S]*?^\1\2[^\n]*$/gm, "");
  for (const m of withoutFences.matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const base = slug(m[1]);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  for (const m of withoutFences.matchAll(/<a\s+(?:name|id)="([^"]+)"/g)) out.add(m[1]);
  return out;
}

/** The link targets of a Markdown text: inline links and images, and reference definitions. */
export function links(text: string): string[] {
  const body = prose(text);
  const inline = [...body.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1]);
  const refs = [...body.matchAll(/^\s{0,3}\[[^\]]+\]:\s*(\S+)/gm)].map((m) => m[1]);
  return [...inline, ...refs];
}

const external = (target: string) => /^[a-z][a-z0-9+.-]*:/i.test(target);

function problems(file: string): string[] {
  const text = readFileSync(file, "utf8");
  const out: string[] = [];
  for (const target of links(text)) {
    if (external(target)) continue;
    const [rawPath, anchor] = target.split("#", 2) as [string, string | undefined];
    const path = rawPath === "" ? file : resolve(dirname(file), decodeURIComponent(rawPath));
    if (!path.startsWith(ROOT) || !existsSync(path)) {
      out.push(`${target}: no such file`);
      continue;
    }
    if (anchor === undefined || anchor === "") continue;
    if (!path.endsWith(".md")) {
      if (!/^L\d+(-L\d+)?$/.test(anchor)) out.push(`${target}: an anchor into a file that is not Markdown`);
      continue;
    }
    if (!anchors(readFileSync(path, "utf8")).has(decodeURIComponent(anchor))) out.push(`${target}: no heading makes #${anchor}`);
  }
  return out;
}

test("the slug and link rules are GitHub's", () => {
  expect(slug("State across restarts (`--state DIR`)")).toBe("state-across-restarts---state-dir");
  expect(slug("The native plugin: `pulumi-cloudplatform/native`")).toBe("the-native-plugin-pulumi-cloudplatformnative");
  expect(slug("Engine-level rows (P1–P6)")).toBe("engine-level-rows-p1p6");
  expect(slug("A [link](x.md) in a heading")).toBe("a-link-in-a-heading");
  expect([...anchors("# Title\n## Usage\n```sh\n# not a heading\n```\n## Usage\n")]).toEqual(["title", "usage", "usage-1"]);
  expect(links("[a](b.md#c) `[x](y)` ![i](p.png)\n```\n[no](z)\n```\n[ref]: r.md")).toEqual(["b.md#c", "p.png", "r.md"]);
});

test("the files checked include the README, CONTRIBUTING and the guides", () => {
  const names = FILES.map((f) => relative(ROOT, f));
  expect(names).toEqual(expect.arrayContaining(["README.md", "CONTRIBUTING.md", "docs/emulator.md", "docs/reference/README.md"]));
});

test.each(FILES.map((f) => relative(ROOT, f)))("%s: every relative link and anchor resolves", (name) => {
  expect(problems(join(ROOT, name))).toEqual([]);
});
