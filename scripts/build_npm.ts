/**
 * Builds the npm package into `npm/` from the same sources, with the
 * TypeScript compiler from npm (JSR, and so `dnt`, is out of reach here):
 *
 * 1. stages the Node entries and `src/` (minus the Deno port) in
 *    `npm/.stage/`, copied, never edited: `mod.node.ts` as `mod.ts`, so the
 *    package's `dist/mod.js` is the Node entry (and the test suite's
 *    `../mod.ts` imports get it), and `cli.node.ts`, the bin's entry;
 * 2. writes `npm/package.json` and installs it;
 * 3. compiles to `npm/dist/` (with declarations);
 * 4. compiles the test suite against the same stage into `npm/.test/`, so
 *    `node --test npm/.test/tests/` runs it on Node;
 * 5. bundles the command-line server into one minified file, `dist/server.js`, with
 *    the license texts of the third-party code in it beside it, in
 *    `dist/THIRD_PARTY_LICENSES.txt`, and writes the `#!/usr/bin/env node` bin
 *    `dist/cli.js`, which catches stop signals and then loads it (see `bundleBin`).
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

async function run(cmd: string, args: string[], cwd: string, env?: Record<string, string>): Promise<void> {
  const command = new Deno.Command(cmd, { args, cwd, env, stdout: "inherit", stderr: "inherit" });
  const { code } = await command.output();
  if (code !== 0) throw new Error(`${cmd} ${args.join(" ")} failed with ${code}`);
}

function existsDir(path: string): boolean {
  try {
    return Deno.statSync(path).isDirectory;
  } catch {
    return false;
  }
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
await Deno.copyFile(`${repo}mod.node.ts`, `${stage}mod.ts`);
await Deno.copyFile(`${repo}cli.node.ts`, `${stage}cli.node.ts`);
await copyTree(`${repo}src/`, `${stage}src/`, (p) => p === "ports/deno.ts");
await copyTree(`${repo}tests/`, `${stage}tests/`, (p) => p.endsWith("_deno_test.ts"));
// The stress campaigns: tests/stress_short_test.ts runs their short versions.
await copyTree(`${repo}scripts/stress/`, `${stage}scripts/stress/`, () => false);

const packageJson = {
  name: "ptc-fs-mcp",
  version: VERSION,
  description:
    "A small, exact filesystem MCP server (protocol 2026-07-28) for one confined root, over stdio.",
  license: "MIT",
  repository: { type: "git", url: "git+https://github.com/andreasronge/ptc-fs-mcp.git" },
  homepage: "https://github.com/andreasronge/ptc-fs-mcp#readme",
  bugs: { url: "https://github.com/andreasronge/ptc-fs-mcp/issues" },
  type: "module",
  bin: { "ptc-fs-mcp": "dist/cli.js" },
  main: "./dist/mod.js",
  types: "./dist/mod.d.ts",
  exports: {
    // `default` also serves require(): Node >= 20.19 loads this ES module synchronously (no top-level await).
    ".": { types: "./dist/mod.d.ts", import: "./dist/mod.js", default: "./dist/mod.js" },
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

await bundleBin();
console.log(`built ptc-fs-mcp ${VERSION} into ${out}`);

/**
 * Writes the server `dist/server.js`: `cli.node.ts` with everything it
 * imports, the SDK and zod included, bundled by `deno bundle` into one ES
 * module. Node then reads and compiles one file at start-up instead of
 * resolving, reading and linking some 140 modules (zod alone brings 97, 64
 * of them locales the SDK's `zod/v4` import pulls in), which was a third of
 * the time to the first answer. Minified, the file is half the bytes and
 * Node answers its first request about 10% sooner (it compiles the whole
 * module at start: 340 against 375 ms in one interleaved run of 30 starts
 * each). The library (`dist/mod.js`) stays separate modules that import
 * the dependencies, which stay `dependencies`.
 *
 * The bundle carries third-party code, so their licenses ship with it:
 * every package that a `// node_modules/<package>/...` module marker of the
 * bundle names, plus the packages that one's own files inline (the SDK's
 * `dist` inlines ajv and a few small packages, each within a
 * `//#region .../node_modules/.pnpm/<name>@<version>/...` marker), whose
 * exact versions are fetched with `npm pack` for their license files. The
 * build fails when code it cannot attribute, or a package without a license
 * file, shows up. Module markers are paths relative to the out dir (the
 * packages come from its `node_modules`, never a machine-specific cache),
 * so the output is the same on every machine.
 */
async function bundleBin(): Promise<void> {
  const denoBundle = (entry: string, output: string, flags: string[], env?: Record<string, string>) =>
    run(
      Deno.execPath(),
      ["bundle", "--quiet", "--no-config", "--platform=node", ...flags, "--output", output, entry],
      out,
      env,
    );
  const bundle = `${stage}cli.bundle.js`;
  // The export condition `browser` picks the SDK's browser `_shims` (`deno bundle` takes conditions only from
  // `DENO_CONDITIONS`). They differ from its Node ones in two exports that this server never uses: the default
  // JSON Schema validator, which validates only elicitation results, and `process`, which only the SDK's own
  // stdio transport reads (the server brings its own, `src/cli/stdio.ts`). So the bundle carries
  // @cfworker/json-schema (42 KB) instead of ajv and ajv-formats (295 KB, all run at load): measured with
  // `deno task bench --only cold_start`, alternated, 2.46–2.57× `node -e 0` against 2.67–2.73×.
  await denoBundle(".stage/cli.node.ts", bundle, ["--node-modules-dir=manual"], {
    DENO_CONDITIONS: "browser",
  });
  // The bin is that bundle minified (by bundling it again): half the bytes, and Node compiles it at start.
  // Names are kept for any code that reads a class's or function's name.
  const minified = `${stage}cli.min.js`;
  await denoBundle(bundle, minified, ["--minify", "--keep-names"]);
  const code = await Deno.readTextFile(bundle);
  // esbuild's marker before each module: its path, relative to the out dir.
  const modules = [...code.matchAll(/^\/\/ ((?:\.stage|node_modules|\.\.)\/\S*\.(?:[cm]?[jt]sx?|json))$/gm)]
    .map((m) => m[1]);
  if (!modules.some((m) => m.endsWith("/server/dist/shimsBrowser.mjs"))) {
    throw new Error("the bundle does not hold the SDK's browser _shims: see the condition above");
  }
  const installed = new Set<string>(); // package directories, relative to the out dir
  const inlined = new Set<string>(); // name@version
  for (const module of new Set(modules)) {
    if (module.startsWith(".stage/")) continue; // this package's own code
    // The innermost `node_modules/<package>` holds the module (a nested copy is its own package).
    const match = module.match(/^(node_modules\/(?:.*\/node_modules\/)?(?:@[^/]+\/)?[^/]+)\//);
    if (!match) throw new Error(`cannot attribute bundled module ${module}`);
    installed.add(`${match[1]}/`);
    const source = await Deno.readTextFile(`${out}${module}`);
    for (const region of source.matchAll(/^\/\/#region (\S*node_modules\/\S*)$/gm)) {
      const pnpm = region[1].match(/node_modules\/\.pnpm\/([^/]+)\/node_modules\/((?:@[^/]+\/)?[^/]+)\//);
      const name = pnpm?.[2];
      const version = pnpm && name && pnpm[1].startsWith(`${name.replace("/", "+")}@`)
        ? pnpm[1].slice(name.length + 1).split("_")[0]
        : undefined;
      if (!name || !version) throw new Error(`cannot attribute code inlined in ${module}: ${region[1]}`);
      inlined.add(`${name}@${version}`);
    }
  }
  const unpacked = `${stage}licenses/`;
  await Deno.mkdir(unpacked, { recursive: true });
  const packed = new Map<string, string>(); // name@version → its unpacked directory
  if (inlined.size > 0) {
    const report = new Deno.Command("npm", {
      args: ["pack", ...[...inlined].sort(), "--json", "--loglevel=error", "--pack-destination", unpacked],
      cwd: unpacked,
      stdout: "piped",
      stderr: "inherit",
    }).outputSync();
    if (!report.success) throw new Error("npm pack of the inlined packages failed");
    for (const { id, filename } of JSON.parse(new TextDecoder().decode(report.stdout))) {
      const dir = `${unpacked}${filename.replace(/\.tgz$/, "")}/`;
      await Deno.mkdir(dir, { recursive: true });
      await run("tar", ["-xzf", `${unpacked}${filename}`, "-C", dir, "--strip-components=1"], unpacked);
      packed.set(id, dir);
    }
  }
  const sections = new Map<string, string>(); // name@version → its section
  const licenseFiles = (dir: string) =>
    [...Deno.readDirSync(dir)].map((e) => e.name)
      .filter((n) => /^(licen[cs]e|copying|notice)([.-]|$)/i.test(n)).sort().map((n) => `${dir}${n}`);
  const add = (dir: string) => {
    const manifest = JSON.parse(Deno.readTextFileSync(`${dir}package.json`));
    const id = `${manifest.name}@${manifest.version}`;
    let files = licenseFiles(dir);
    if (files.length === 0) {
      // A package whose tarball has none: its files from its repository, kept here (scripts/licenses/README.md).
      const kept = `${repo}scripts/licenses/${id.replace("/", "+")}/`;
      files = existsDir(kept) ? licenseFiles(kept) : [];
    }
    if (files.length === 0) throw new Error(`${id} ships no license file, and scripts/licenses/ has none`);
    const texts = files.map((f) => Deno.readTextFileSync(f).trimEnd());
    sections.set(
      id,
      `${"=".repeat(78)}\n${id} (${manifest.license})\n${"-".repeat(78)}\n${texts.join("\n\n")}\n`,
    );
    return manifest.name as string;
  };
  const names = [...installed].map((dir) => add(`${out}${dir}`));
  for (const id of inlined) {
    const dir = packed.get(id);
    if (!dir) throw new Error(`npm pack did not fetch ${id}`);
    add(dir);
  }
  await Deno.writeTextFile(
    `${out}dist/THIRD_PARTY_LICENSES.txt`,
    "dist/server.js bundles code of the packages below. Their license files follow, as each package ships them.\n\n" +
      [...sections.keys()].sort().map((id) => sections.get(id)).join("\n"),
  );
  await Deno.writeTextFile(
    `${out}dist/server.js`,
    `// ptc-fs-mcp ${VERSION}, the command-line server in one minified file: its own code (readable\n` +
      `// in dist/src/) bundled with ${[...new Set(names)].sort().join(", ")} (and what they inline).\n` +
      `// Their licenses: THIRD_PARTY_LICENSES.txt beside this file. Started by dist/cli.js.\n` +
      await Deno.readTextFile(minified),
  );
  // The bin catches stop signals before it loads the bundle, whose compilation is most of the start-up: a
  // signal meanwhile is kept for the server (src/cli/signals.ts), not the end of the process.
  await Deno.writeTextFile(
    `${out}dist/cli.js`,
    `#!/usr/bin/env node\n// ptc-fs-mcp ${VERSION}, the command-line server: dist/server.js, once stop signals are caught.\n` +
      `import "./src/cli/signals.js";\nawait import("./server.js");\n`,
  );
  await Deno.chmod(`${out}dist/cli.js`, 0o755);
}
