// Build detection (infrastructure routes §4.3, best effort): what a repository's name suggests
// about its runtime, framework and commands, and the apps a monorepo holds.
export interface DetectQuery {
  gitUrl?: string;
  repoFullName?: string;
  branch?: string;
  rootDir?: string;
}

interface DetectedBuild {
  runtime: string | null; runtimeVersion: string | null; framework: string | null; packageManager: string | null;
  buildCommand: string | null; startCommand: string | null; port: number | null; staticOutputDir: string | null;
  staticSpa: boolean | null; monorepoStrategy: string | null; workspaceName: string | null; watchPaths: string[];
}
const NULL_BUILD: DetectedBuild = {
  runtime: null, runtimeVersion: null, framework: null, packageManager: null, buildCommand: null, startCommand: null,
  port: null, staticOutputDir: null, staticSpa: null, monorepoStrategy: null, workspaceName: null, watchPaths: [] as string[],
};

/** Recognises a few repository names; anything else cannot be inspected and comes back null. */
export function detectBuild(q: DetectQuery): DetectedBuild {
  const name = (q.repoFullName ?? q.gitUrl ?? "").toLowerCase();
  if (!name || name.includes("does-not-exist") || name.includes("private")) return { ...NULL_BUILD };
  const node = { runtime: "node", runtimeVersion: "20", packageManager: "npm", buildCommand: "npm ci && npm run build", startCommand: "npm start", port: 3000 };
  if (name.includes("next")) return { ...NULL_BUILD, ...node, framework: "nextjs", startCommand: "npm run start" };
  if (name.includes("vite") || name.includes("static") || name.includes("site")) {
    return { ...NULL_BUILD, ...node, framework: "vite", startCommand: null, port: null, staticOutputDir: "dist", staticSpa: true };
  }
  if (name.includes("django") || name.includes("flask") || name.includes("python")) {
    return { ...NULL_BUILD, runtime: "python", runtimeVersion: "3.12", framework: name.includes("django") ? "django" : "flask", packageManager: "pip", buildCommand: "pip install -r requirements.txt", startCommand: "gunicorn app:app", port: 8000 };
  }
  if (name.includes("express") || name.includes("node") || name.includes("api") || name.includes("app")) return { ...NULL_BUILD, ...node, framework: name.includes("express") ? "express" : null };
  return { ...NULL_BUILD };
}

export function detectApps(q: DetectQuery) {
  if (!q.gitUrl && !q.repoFullName) return { status: "NOT_FOUND", workspace: false, orchestrator: null, truncated: false, apps: [] };
  if (q.gitUrl && !/^https:\/\/(www\.)?github\.com\//.test(q.gitUrl)) {
    return { status: "NOT_GITHUB_HOST", workspace: false, orchestrator: null, truncated: false, apps: [] };
  }
  const name = (q.repoFullName ?? q.gitUrl ?? "").toLowerCase();
  if (name.includes("monorepo")) {
    const web = { ...detectBuild({ repoFullName: "web-next" }), monorepoStrategy: "WORKSPACE", workspaceName: "web", watchPaths: ["apps/web/**", "packages/**"] };
    const api = { ...detectBuild({ repoFullName: "api-express" }), monorepoStrategy: "WORKSPACE", workspaceName: "api", watchPaths: ["apps/api/**", "packages/**"] };
    return {
      status: "OK", workspace: true, orchestrator: "turbo", truncated: false,
      apps: [{ rootDir: "apps/web", name: "web", deployable: true, build: web }, { rootDir: "apps/api", name: "api", deployable: true, build: api }],
    };
  }
  const build = detectBuild(q);
  if (build.runtime === null) return { status: "NOT_FOUND", workspace: false, orchestrator: null, truncated: false, apps: [] };
  const app = name.split("/").pop()!.replace(/\.git$/, "");
  return { status: "OK", workspace: false, orchestrator: null, truncated: false, apps: [{ rootDir: q.rootDir ?? ".", name: app, deployable: true, build }] };
}

