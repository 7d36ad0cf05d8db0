// Completes the program `pulumi import --file` generated: each Service whose secrets the import
// left out gets its env vars and secret files back as arguments, the plain values as they are and
// every secret value read from stack config, so no secret is ever written into the program.
import { extname } from "node:path";

export type Language = "typescript" | "python" | "go";

export interface EnvVarValue {
  key: string;
  scope: string;
  secret: boolean;
  /** The plain value; for a secret one, the config key it is read from. */
  value?: string;
  configKey?: string;
}

export interface SecretFileValue {
  path: string;
  configKey: string;
}

/** An EnvVar's value or a SecretFile's content, left out of the import, read from config. */
export interface ValueArgs {
  /** The resource's logical name, as `pulumi import` wrote it. */
  name: string;
  type: "EnvVar" | "SecretFile";
  configKey: string;
}

/** What one Service gets back: only the inputs the import left out are set. */
export interface ServiceArgs {
  /** The resource's logical name, as `pulumi import` wrote it. */
  name: string;
  envVars?: EnvVarValue[];
  secretFiles?: SecretFileValue[];
}

export function languageOf(file: string): Language {
  const ext = extname(file);
  if (ext === ".ts") return "typescript";
  if (ext === ".py") return "python";
  if (ext === ".go") return "go";
  throw new Error(`--program ${file}: expected the .ts, .py or .go file that \`pulumi import --out\` wrote`);
}

const q = (s: string) => JSON.stringify(s);

interface Dialect {
  /** The line that opens the resource's arguments (a Service's unless named); group 1 is its indentation. */
  opening(name: string, type?: string): RegExp;
  /** An EnvVar's `value` or a SecretFile's `content`, read from config. */
  valueArg(v: ValueArgs, indent: string): string;
  envVars(vars: EnvVarValue[], indent: string): string;
  secretFiles(files: SecretFileValue[], indent: string): string;
  /** Declares `config` (or `cfg`) where the program can read it before the resources. */
  declareConfig(text: string): string;
  /** True when the program already reads this config key. */
  reads(text: string, configKey: string): boolean;
}

const re = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

const typescript: Dialect = {
  opening: (name, type = "Service") => new RegExp(`^([ \\t]*)(?:const \\w+ = )?new \\w+\\.${type}\\(${re(q(name))}, \\{[ \\t]*$`, "m"),
  valueArg: (v, i) => `${i}${v.type === "EnvVar" ? "value" : "content"}: config.requireSecret(${q(v.configKey)}),\n`,
  envVars: (vars, i) =>
    `${i}envVars: [\n${vars.map((v) => `${i}    { key: ${q(v.key)}, scope: ${q(v.scope)}, secret: ${v.secret}, value: ${v.configKey ? `config.requireSecret(${q(v.configKey)})` : q(v.value ?? "")} },\n`).join("")}${i}],\n`,
  secretFiles: (files, i) =>
    `${i}secretFiles: [\n${files.map((f) => `${i}    { path: ${q(f.path)}, content: config.requireSecret(${q(f.configKey)}) },\n`).join("")}${i}],\n`,
  declareConfig(text) {
    if (/^const config = new pulumi\.Config\(\);$/m.test(text)) return text;
    let t = /^import \* as pulumi from "@pulumi\/pulumi";$/m.test(text) ? text : `import * as pulumi from "@pulumi/pulumi";\n${text}`;
    const imports = [...t.matchAll(/^import .*;$/gm)];
    const at = imports.length ? imports[imports.length - 1].index! + imports[imports.length - 1][0].length + 1 : 0;
    t = `${t.slice(0, at)}\nconst config = new pulumi.Config();\n${t.slice(at)}`;
    return t;
  },
  reads: (text, key) => text.includes(`config.requireSecret(${q(key)})`),
};

const python: Dialect = {
  opening: (name, type = "Service") => new RegExp(`^([ \\t]*)(?:\\w+ = )?\\w+\\.${type}\\(${re(q(name))},[ \\t]*$`, "m"),
  valueArg: (v, i) => `${i}${v.type === "EnvVar" ? "value" : "content"}=config.require_secret(${q(v.configKey)}),\n`,
  envVars: (vars, i) =>
    `${i}env_vars=[\n${vars.map((v) => `${i}    {"key": ${q(v.key)}, "scope": ${q(v.scope)}, "secret": ${v.secret ? "True" : "False"}, "value": ${v.configKey ? `config.require_secret(${q(v.configKey)})` : q(v.value ?? "")}},\n`).join("")}${i}],\n`,
  secretFiles: (files, i) =>
    `${i}secret_files=[\n${files.map((f) => `${i}    {"path": ${q(f.path)}, "content": config.require_secret(${q(f.configKey)})},\n`).join("")}${i}],\n`,
  declareConfig(text) {
    if (/^config = pulumi\.Config\(\)$/m.test(text)) return text;
    const t = /^import pulumi$/m.test(text) ? text : `import pulumi\n${text}`;
    const imports = [...t.matchAll(/^(?:import|from) .*$/gm)];
    const at = imports.length ? imports[imports.length - 1].index! + imports[imports.length - 1][0].length + 1 : 0;
    return `${t.slice(0, at)}\nconfig = pulumi.Config()\n${t.slice(at)}`;
  },
  reads: (text, key) => text.includes(`config.require_secret(${q(key)})`),
};

const go: Dialect = {
  opening: (name, type = "Service") => new RegExp(`^([ \\t]*)(?:\\w+, err :?= )?\\w+\\.New${type}\\(ctx, ${re(q(name))}, &\\w+\\.${type}Args\\{[ \\t]*$`, "m"),
  valueArg: (v, i) => `${i}${v.type === "EnvVar" ? "Value" : "Content"}: cfg.RequireSecret(${q(v.configKey)}),\n`,
  envVars: (vars, i) =>
    `${i}EnvVars: cloudplatform.ServiceEnvVarArray{\n${vars.map((v) => `${i}\t&cloudplatform.ServiceEnvVarArgs{Key: pulumi.String(${q(v.key)}), Scope: pulumi.String(${q(v.scope)}), Secret: pulumi.Bool(${v.secret}), Value: ${v.configKey ? `cfg.RequireSecret(${q(v.configKey)})` : `pulumi.String(${q(v.value ?? "")})`}},\n`).join("")}${i}},\n`,
  secretFiles: (files, i) =>
    `${i}SecretFiles: cloudplatform.ServiceSecretFileArray{\n${files.map((f) => `${i}\t&cloudplatform.ServiceSecretFileArgs{Path: pulumi.String(${q(f.path)}), Content: cfg.RequireSecret(${q(f.configKey)})},\n`).join("")}${i}},\n`,
  declareConfig(text) {
    if (/^\s*cfg := config\.New\(ctx, ""\)$/m.test(text)) return text;
    let t = text;
    if (!t.includes('"github.com/pulumi/pulumi/sdk/v3/go/pulumi/config"')) {
      t = t.replace(/^(\s*)"github\.com\/pulumi\/pulumi\/sdk\/v3\/go\/pulumi"$/m, '$1"github.com/pulumi/pulumi/sdk/v3/go/pulumi"\n$1"github.com/pulumi/pulumi/sdk/v3/go/pulumi/config"');
    }
    const run = /^([ \t]*)pulumi\.Run\(func\(ctx \*pulumi\.Context\) error \{[ \t]*$/m.exec(t);
    if (!run) throw new Error("the program has no `pulumi.Run(func(ctx *pulumi.Context) error {` to read config in");
    const at = run.index + run[0].length + 1;
    return `${t.slice(0, at)}${run[1]}\tcfg := config.New(ctx, "")\n${t.slice(at)}`;
  },
  reads: (text, key) => text.includes(`cfg.RequireSecret(${q(key)})`),
};

const DIALECTS: Record<Language, Dialect> = { typescript, python, go };

/**
 * Adds each service's left-out arguments to the program. A service whose secrets the program
 * already reads is left as it is, so running the step twice changes nothing.
 */
export function completeProgram(text: string, language: Language, services: ServiceArgs[], values: ValueArgs[] = []): string {
  const d = DIALECTS[language];
  const todo = services.filter((s) => {
    const keys = [...(s.envVars ?? []).flatMap((v) => (v.configKey ? [v.configKey] : [])), ...(s.secretFiles ?? []).map((f) => f.configKey)];
    return !(keys.length && keys.every((k) => d.reads(text, k)));
  });
  const valuesTodo = values.filter((v) => !d.reads(text, v.configKey));
  if (!todo.length && !valuesTodo.length) return text;
  let out = d.declareConfig(text);
  for (const v of valuesTodo) {
    const m = d.opening(v.name, v.type).exec(out);
    if (!m) throw new Error(`the program declares no ${v.type} named "${v.name}" as \`pulumi import\` writes it; add its ${v.type === "EnvVar" ? "value" : "content"} by hand`);
    const next = out.slice(m.index + m[0].length + 1).match(/^[ \t]*/)![0];
    const indent = next.length > m[1].length ? next : `${m[1]}    `;
    const at = m.index + m[0].length + 1;
    out = out.slice(0, at) + d.valueArg(v, indent) + out.slice(at);
  }
  for (const s of todo) {
    const m = d.opening(s.name).exec(out);
    if (!m) throw new Error(`the program declares no Service named "${s.name}" as \`pulumi import\` writes it; add its env vars and secret files by hand`);
    const next = out.slice(m.index + m[0].length + 1).match(/^[ \t]*/)![0];
    const indent = next.length > m[1].length ? next : `${m[1]}    `;
    const args = (s.envVars ? d.envVars(s.envVars, indent) : "") + (s.secretFiles ? d.secretFiles(s.secretFiles, indent) : "");
    const at = m.index + m[0].length + 1;
    out = out.slice(0, at) + args + out.slice(at);
  }
  return out;
}

/** Config keys for one service's secrets: `<name>-<KEY>` and `<name>-file-<path>`, unique. */
export function configKeys(name: string, vars: string[], paths: string[]): { vars: Map<string, string>; files: Map<string, string> } {
  const taken = new Set<string>();
  const unique = (k: string) => {
    let c = k;
    for (let n = 2; taken.has(c.toLowerCase()); n++) c = `${k}-${n}`;
    taken.add(c.toLowerCase());
    return c;
  };
  return {
    vars: new Map(vars.map((key) => [key, unique(`${name}-${key}`)])),
    files: new Map(paths.map((p) => [p, unique(`${name}-file-${p.replace(/[^A-Za-z0-9_.]+/g, "-").replace(/^-+|-+$/g, "")}`)])),
  };
}
