/**
 * Builds the npm package into `npm/` from the same sources, with the
 * TypeScript compiler from npm (JSR, and so `dnt`, is out of reach here):
 *
 * 1. stages `mod.ts` and `src/` (minus the Deno port) in `npm/.stage/`,
 *    with `src/ports/default.ts` switched to the Node port;
 * 2. writes `npm/package.json` and installs it;
 * 3. compiles to `npm/dist/` (with declarations) and writes the
 *    `#!/usr/bin/env node` bin `dist/cli.js`;
 * 4. compiles the test suite against the same stage into `npm/.test/`, so
 *    `node --test npm/.test/tests/` runs it on Node.
 *
 * Usage: deno task build:npm [--out DIR]   (default: npm/)
 */
import { VERSION } from "../src/version.ts";
import denoJson from "../deno.json" with { type: "json" };

const repo = new URL("..", import.meta.url).pathname;
const outFlag = Deno.args.indexOf("--out");
const out = outFlag >= 0 ? `${Deno.args[outFlag + 1].replace(/\/$/, "")}/` : `${repo}npm/`;
const stage = `${out}.stage/`;

/** Exact versions, from the one import map. */
function pinned(name: string): string {
  const spec = (denoJson.imports as Record<string, string>)[name];
  return spec.slice(spec.lastIndexOf("@") + 1);
}

async function run(cmd: string, args: string[], cwd: string): Promise<void> {
  const { code } = await new Deno.Command(cmd, { args, cwd, stdout: "inherit", stderr: "inherit" }).output();
  if (code !== 0) throw new Error(`${cmd} ${args.join(" ")} failed with ${code}`);
}

async function copyTree(from: string, to: string, skip: (rel: string) => boolean, rel = ""): Promise<void> {
  await Deno.mkdir(`${to}${rel}`, { recursive: true });
  for await (const entry of Deno.readDir(`${from}${rel}`)) {
    const path = `${rel}${entry.name}`;
    if (skip(path)) continue;
    if (entry.isDirectory) await copyTree(from, to, skip, `${path}/`);
    else if (entry.isFile) await Deno.copyFile(`${from}${path}`, `${to}${path}`);
  }
}

if (denoJson.version !== VERSION) {
  throw new Error(`deno.json says ${denoJson.version}, src/version.ts ${VERSION}`);
}

await Deno.remove(out, { recursive: true }).catch(() => {});
await Deno.mkdir(stage, { recursive: true });
await Deno.copyFile(`${repo}mod.ts`, `${stage}mod.ts`);
await copyTree(`${repo}src/`, `${stage}src/`, (p) => p === "ports/deno.ts");
await copyTree(`${repo}tests/`, `${stage}tests/`, () => false);
await Deno.writeTextFile(
  `${stage}src/ports/default.ts`,
  `/** The port \`openRoot\` uses when none is given: Node's, in the npm build. */\n` +
    `export { nodePort as defaultPort } from "./node.ts";\n`,
);

const packageJson = {
  name: "ptc-fs-mcp",
  version: VERSION,
  description:
    "A small, exact filesystem MCP server (protocol 2026-07-28) for one confined root, over stdio.",
  license: "MIT",
  type: "module",
  bin: { "ptc-fs-mcp": "dist/cli.js" },
  main: "./dist/mod.js",
  types: "./dist/mod.d.ts",
  exports: {
    ".": { types: "./dist/mod.d.ts", import: "./dist/mod.js" },
    "./package.json": "./package.json",
  },
  files: ["dist/", "README.md", "LICENSE"],
  engines: { node: ">=20.19" },
  keywords: ["mcp", "model-context-protocol", "filesystem", "server"],
  dependencies: {
    "@modelcontextprotocol/server": pinned("@modelcontextprotocol/server"),
    zod: pinned("zod"),
  },
  devDependencies: {
    "@modelcontextprotocol/client": pinned("@modelcontextprotocol/client"),
    "@types/node": pinned("@types/node"),
    ajv: pinned("ajv"),
    "fast-check": pinned("fast-check"),
    typescript: pinned("typescript"),
  },
};
await Deno.writeTextFile(`${out}package.json`, JSON.stringify(packageJson, null, 2) + "\n");
await Deno.copyFile(`${repo}README.md`, `${out}README.md`);
await Deno.copyFile(`${repo}LICENSE`, `${out}LICENSE`);
await run("npm", ["install", "--no-audit", "--no-fund", "--loglevel=error"], out);

const compilerOptions = {
  target: "ES2022",
  module: "NodeNext",
  moduleResolution: "NodeNext",
  rewriteRelativeImportExtensions: true,
  allowImportingTsExtensions: true,
  resolveJsonModule: true,
  strict: true,
  skipLibCheck: true,
  types: ["node"],
  lib: ["ES2023", "DOM"],
};
const tsconfig = (rootFiles: string[], outDir: string, declaration: boolean) => ({
  compilerOptions: { ...compilerOptions, rootDir: ".stage", outDir, declaration },
  include: rootFiles,
});
await Deno.writeTextFile(
  `${out}tsconfig.json`,
  JSON.stringify(tsconfig([".stage/mod.ts", ".stage/src"], "dist", true)),
);
await Deno.writeTextFile(
  `${out}tsconfig.test.json`,
  JSON.stringify(tsconfig([".stage/mod.ts", ".stage/src", ".stage/tests"], ".test", false)),
);
await run("node", ["node_modules/typescript/bin/tsc", "-p", "tsconfig.json"], out);
await run("node", ["node_modules/typescript/bin/tsc", "-p", "tsconfig.test.json"], out);

await Deno.writeTextFile(`${out}dist/cli.js`, `#!/usr/bin/env node\nimport "./src/cli/node_main.js";\n`);
await Deno.chmod(`${out}dist/cli.js`, 0o755);
console.log(`built ptc-fs-mcp ${VERSION} into npm/`);
