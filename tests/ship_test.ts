/**
 * What ships: the npm tarball, installed into a fresh project, starts from
 * its bin and from an absolute node under an empty environment, imports as
 * ESM, requires as CommonJS, type-checks as TypeScript, and runs the
 * embedding example; the host document's hermetic transport starts exactly
 * as written; the JSR dry run passes; the demo runs.
 *
 * The package checks need the npm build, which exists before the Node suite
 * runs (`node --test <npm out>/.test/tests/`), so they run there and are
 * skipped under Deno. The package is packed and installed once per run of
 * this file, on first use.
 *
 * @module
 */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync, type SpawnSyncReturns } from "node:child_process";
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, isAbsolute, join } from "node:path";
import process from "node:process";
import { Ajv2020 } from "ajv/dist/2020.js";
import { ChildClient } from "./_client.ts";
import { makeRoot, NODE_CLI, REPO, RUNTIME } from "./_harness.ts";
import { DEFAULT_LIMITS } from "../src/limits.ts";
import { VERSION } from "../src/version.ts";
import { contentHash } from "./_sha256.ts";

/** The npm build's out dir (`npm/` by default): `<out>/dist/cli.js` is the bin. */
const NPM_OUT = dirname(dirname(NODE_CLI));

const NODE_ONLY = RUNTIME === "node"
  ? false
  : "needs the built npm package, which exists only for the Node suite (it runs after the build)";
const DENO_ONLY = RUNTIME === "deno" ? false : "runs the source tree with deno";
// Deno lists a skipped test as "ignored" without its reason, so say it once.
if (NODE_ONLY) console.log(`ship_test: the "npm:" tests are skipped under Deno: each ${NODE_ONLY}`);

const TOOL_NAMES = ["list_directory", "search_files", "search_text", "read_text_file", "write_text_file"];
const PLACEHOLDER = "/ABSOLUTE/PATH/TO/";

const hostDocument = JSON.parse(readFileSync(join(REPO, "examples", "ptc-host.json"), "utf8"));

function pinned(name: string): string {
  const imports = JSON.parse(readFileSync(join(REPO, "deno.json"), "utf8")).imports as Record<string, string>;
  const spec = imports[name];
  return spec.slice(spec.lastIndexOf("@") + 1);
}

/** Runs a command to completion; the timeout only detects hangs. */
function run(cmd: string, args: string[], options: { cwd?: string; env?: Record<string, string> } = {}) {
  return spawnSync(cmd, args, { encoding: "utf8", timeout: 300_000, ...options });
}

function assertRan(result: SpawnSyncReturns<string>, what: string): void {
  assert.equal(result.error, undefined, `${what}: ${result.error}`);
  assert.equal(result.status, 0, `${what} exited ${result.status}:\n${result.stdout}\n${result.stderr}`);
}

// --- the packed and installed package, made once --------------------------------------------------

interface Installed {
  /** A temp dir holding the tarball and the consumer project. */
  readonly dir: string;
  /** The tarball's file name, as `npm pack` reported it. */
  readonly tarball: string;
  /** The paths inside the tarball. */
  readonly files: readonly string[];
  /** The consumer project, with the tarball and the MCP client installed. */
  readonly project: string;
}

let installing: Promise<Installed> | undefined;
const cleanups: (() => void)[] = [];
after(() => cleanups.forEach((cleanup) => cleanup()));

function installed(): Promise<Installed> {
  return installing ??= Promise.resolve().then(packAndInstall);
}

function packAndInstall(): Installed {
  const dir = mkdtempSync(join(tmpdir(), "ptc-fs-mcp-ship-"));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const pack = run("npm", ["pack", "--json", "--loglevel=error", "--pack-destination", dir], {
    cwd: NPM_OUT,
  });
  assertRan(pack, "npm pack");
  const [report] = JSON.parse(pack.stdout);
  const project = join(dir, "consumer");
  mkdirSync(project);
  writeFileSync(
    join(project, "package.json"),
    JSON.stringify({ name: "ptc-fs-mcp-consumer", private: true, type: "module" }) + "\n",
  );
  const install = run("npm", [
    "install",
    "--prefer-offline",
    "--no-audit",
    "--no-fund",
    "--loglevel=error",
    join(dir, report.filename),
    `@modelcontextprotocol/client@${pinned("@modelcontextprotocol/client")}`,
  ], { cwd: project });
  assertRan(install, "npm install of the tarball");
  return {
    dir,
    tarball: report.filename,
    files: report.files.map((f: { path: string }) => f.path),
    project,
  };
}

/** `node_modules/ptc-fs-mcp/dist/cli.js` of the consumer, found the way the README says. */
function resolveCli(project: string): string {
  const resolved = run(process.execPath, ["-p", "require.resolve('ptc-fs-mcp/package.json')"], {
    cwd: project,
  });
  assertRan(resolved, "require.resolve");
  return join(dirname(resolved.stdout.trim()), "dist", "cli.js");
}

// --- a stdio conversation with a spawned server -----------------------------------------------------

/**
 * Spawns `command args` with exactly `env` and `cwd`, sends each request in
 * turn (waiting for its answer), then closes stdin and waits for the exit.
 */
async function converse(
  command: string,
  args: readonly string[],
  options: { env: Record<string, string>; cwd: string },
  requests: readonly { method: string; params?: Record<string, unknown> }[],
  // deno-lint-ignore no-explicit-any
): Promise<{ answers: any[]; code: number | null; stderr: string }> {
  const server = new ChildClient(command, args, { ...options, label: command });
  try {
    const answers = [];
    for (const request of requests) answers.push(await server.request(request.method, request.params));
    return { answers, code: await server.close(), stderr: server.stderr };
  } finally {
    await server.kill();
  }
}

const DISCOVER = { method: "server/discover" };
const call = (name: string, args: Record<string, unknown>) => ({
  method: "tools/call",
  params: { name, arguments: args },
});

// --- the npm package ----------------------------------------------------------------------------------

test("npm: npm pack yields ptc-fs-mcp-<version>.tgz with the build output, docs and nothing else", {
  skip: NODE_ONLY,
}, async () => {
  const { dir, tarball, files } = await installed();
  assert.equal(tarball, `ptc-fs-mcp-${VERSION}.tgz`);
  assert.ok(existsSync(join(dir, tarball)));
  for (
    const required of ["package.json", "README.md", "LICENSE", "dist/cli.js", "dist/mod.js", "dist/mod.d.ts"]
  ) {
    assert.ok(files.includes(required), `${required} is in the tarball`);
  }
  for (const path of files) {
    assert.ok(["package.json", "README.md", "LICENSE"].includes(path) || path.startsWith("dist/"), path);
    assert.ok(!path.includes("ports/deno"), `${path}: the Deno port is not shipped`);
  }
  const manifest = JSON.parse(readFileSync(join(NPM_OUT, "package.json"), "utf8"));
  assert.equal(manifest.version, VERSION);
  assert.equal(manifest.bin["ptc-fs-mcp"], "dist/cli.js");
  assert.deepEqual(manifest.repository, {
    type: "git",
    url: "git+https://github.com/andreasronge/ptc-fs-mcp.git",
  });
  assert.equal(manifest.homepage, "https://github.com/andreasronge/ptc-fs-mcp#readme");
  assert.deepEqual(manifest.bugs, { url: "https://github.com/andreasronge/ptc-fs-mcp/issues" });
  assert.deepEqual(manifest.exports["."], {
    types: "./dist/mod.d.ts",
    import: "./dist/mod.js",
    default: "./dist/mod.js",
  });
  assert.equal(readFileSync(join(NPM_OUT, "dist", "cli.js"), "utf8").split("\n")[0], "#!/usr/bin/env node");
});

test("npm: the installed bin prints its version, and its shebang needs node on PATH", {
  skip: NODE_ONLY,
}, async () => {
  const { dir, project } = await installed();
  const bin = join(project, "node_modules", ".bin", "ptc-fs-mcp");
  const version = run(bin, ["--version"], { cwd: project });
  assertRan(version, "ptc-fs-mcp --version");
  assert.equal(version.stdout, `ptc-fs-mcp ${VERSION}\n`);
  // `#!/usr/bin/env node` looks node up on PATH: without it there, the bin cannot start.
  const noNode = run(bin, ["--version"], { cwd: project, env: { PATH: dir } });
  assert.notEqual(noNode.status, 0);
  assert.equal(noNode.stdout, "");
});

test("npm: npx starts the server as the README shows, pinned where it is installed and from the tarball", {
  skip: NODE_ONLY,
}, async () => {
  const { dir, project, tarball } = await installed();
  const root = makeRoot({ "a.md": "started by npx\n" });
  // The user's environment, as `inherit_environment: true` hands it on; the npm cache already holds the
  // dependencies, so npx need not ask the registry for them.
  const env: Record<string, string> = { npm_config_prefer_offline: "true" };
  for (const [key, value] of Object.entries(process.env)) if (value !== undefined) env[key] ??= value;
  const ways: [string, string[]][] = [
    [project, ["-y", `ptc-fs-mcp@${VERSION}`]], // the host documents' install, where a project installed it
    [dir, ["-y", `--package=./${tarball}`, "ptc-fs-mcp"]], // Running the server, until it is on the registry
  ];
  try {
    for (const [cwd, spec] of ways) {
      const { answers, code } = await converse(
        "npx",
        [...spec, "--root", root.path, "--include", "**"],
        { env, cwd },
        [DISCOVER, call("search_files", { query: ".md" })],
      );
      const what = `npx ${spec.join(" ")}`;
      assert.equal(answers[0].result._meta["io.modelcontextprotocol/serverInfo"].version, VERSION, what);
      assert.deepEqual(answers[1].result.structuredContent.items, [{ path: "a.md" }], what);
      assert.equal(code, 0, what);
    }
  } finally {
    root.cleanup();
  }
});

test("npm: an absolute node on the resolved dist/cli.js serves an absolute root with an empty environment", {
  skip: NODE_ONLY,
}, async () => {
  const { project } = await installed();
  const cli = resolveCli(project);
  assert.ok(isAbsolute(cli) && existsSync(cli), cli);
  const content = "hermetic: nothing from the environment\n";
  const root = makeRoot({ "notes/a.md": content });
  try {
    const { answers, code, stderr } = await converse(
      process.execPath,
      [cli, "--root", root.path, "--include", "**"],
      { env: {}, cwd: tmpdir() },
      [DISCOVER, call("read_text_file", { path: "notes/a.md" })],
    );
    assert.deepEqual(answers[0].result.supportedVersions, ["2026-07-28"]);
    assert.deepEqual(answers[0].result._meta["io.modelcontextprotocol/serverInfo"], {
      name: "ptc-fs-mcp",
      version: VERSION,
    });
    const read = answers[1].result.structuredContent;
    assert.deepEqual(read.items, [{ byte_offset: 0, text: content }]);
    assert.equal(read.content_hash, contentHash(content));
    assert.equal(code, 0);
    assert.equal(stderr, "");
  } finally {
    root.cleanup();
  }
});

test("npm: an ESM consumer imports the library and serves a root from it", { skip: NODE_ONLY }, async () => {
  const { project } = await installed();
  writeFileSync(
    join(project, "consumer.mjs"),
    `import * as lib from "ptc-fs-mcp";
import { ConfigError, createServer, DEFAULT_LIMITS, openRoot } from "ptc-fs-mcp";
const root = openRoot({ root: process.argv[2], include: ["**"] });
let refused = "";
try { openRoot({ root: process.argv[2], include: ["/abs"] }); } catch (e) { refused = e instanceof ConfigError; }
console.log(JSON.stringify({
  exports: Object.keys(lib).sort(),
  limits: DEFAULT_LIMITS,
  server: createServer(root).constructor.name,
  served: root.selector.isServed("a.md"),
  refused,
}));
`,
  );
  const root = makeRoot({ "a.md": "a" });
  try {
    const result = run(process.execPath, ["consumer.mjs", root.path], { cwd: project });
    assertRan(result, "node consumer.mjs");
    const report = JSON.parse(result.stdout);
    for (const name of ["openRoot", "createServer", "DEFAULT_LIMITS", "ConfigError", "ToolError"]) {
      assert.ok(report.exports.includes(name), name);
    }
    for (const name of ["normalizeRelative", "compileGlob", "createSelector"]) {
      assert.ok(report.exports.includes(name), name);
    }
    assert.deepEqual(report.limits, { ...DEFAULT_LIMITS });
    assert.equal(report.server, "McpServer");
    assert.equal(report.served, true);
    assert.equal(report.refused, true);
  } finally {
    root.cleanup();
  }
});

test("npm: a CommonJS consumer requires the library, writes a file and reads it back", {
  skip: NODE_ONLY,
}, async () => {
  const { project } = await installed();
  // The consumer project is "type": "module", so `.cjs` makes this file CommonJS.
  writeFileSync(
    join(project, "consumer.cjs"),
    `const { Client } = require("@modelcontextprotocol/client");
const { InMemoryTransport } = require("@modelcontextprotocol/server");
const lib = require("ptc-fs-mcp");
const { ConfigError, createServer, openRoot } = lib;
(async () => {
  const root = openRoot({ root: process.argv[2], include: ["**"] });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await createServer(root).connect(serverSide);
  const client = new Client({ name: "cjs-consumer", version: "1.0.0" }, {
    versionNegotiation: { mode: { pin: "2026-07-28" } },
  });
  await client.connect(clientSide);
  const call = async (name, args) => (await client.callTool({ name, arguments: args })).structuredContent;
  const written = await call("write_text_file", { path: "from-cjs.md", content: "required, not imported\\n" });
  const read = await call("read_text_file", { path: "from-cjs.md" });
  await client.close();
  let refused = false;
  try { openRoot({ root: process.argv[2], include: ["/abs"] }); } catch (e) { refused = e instanceof ConfigError; }
  console.log(JSON.stringify({
    resolved: require.resolve("ptc-fs-mcp"),
    exports: Object.keys(lib).sort(),
    written,
    read,
    refused,
  }));
})().catch((error) => {
  console.error(error);
  process.exit(1);
});
`,
  );
  const root = makeRoot();
  try {
    const result = run(process.execPath, ["consumer.cjs", root.path], { cwd: project });
    assertRan(result, "node consumer.cjs");
    const report = JSON.parse(result.stdout);
    assert.equal(report.resolved, join(project, "node_modules", "ptc-fs-mcp", "dist", "mod.js"));
    for (const name of ["openRoot", "createServer", "DEFAULT_LIMITS", "ConfigError", "ToolError"]) {
      assert.ok(report.exports.includes(name), name);
    }
    const content = "required, not imported\n";
    assert.deepEqual(report.written, {
      path: "from-cjs.md",
      bytes: content.length,
      content_hash: contentHash(content),
    });
    assert.deepEqual(report.read.items, [{ byte_offset: 0, text: content }]);
    assert.equal(report.read.content_hash, contentHash(content));
    assert.equal(readFileSync(join(root.path, "from-cjs.md"), "utf8"), content);
    assert.equal(report.refused, true);
  } finally {
    root.cleanup();
  }
});

test("npm: a TypeScript consumer type-checks against the shipped declarations", {
  skip: NODE_ONLY,
}, async () => {
  const { project } = await installed();
  writeFileSync(
    join(project, "consumer.ts"),
    `import { createServer, DEFAULT_LIMITS, type FsPort, type Limits, normalizeRelative, openRoot, type Root } from "ptc-fs-mcp";
const limits: Limits = { ...DEFAULT_LIMITS, maxWriteBytes: 1024 };
const root: Root = openRoot({ root: ".", include: ["**"], limits });
const port: FsPort = root.fs;
const rel: string | null = normalizeRelative("docs/a.md");
export const server = createServer(root, { name: "embedded", version: "1.0.0" });
export { port, rel };
// @ts-expect-error: limits are numbers, so the shipped types are not \`any\`
export const wrong: string = DEFAULT_LIMITS.maxWriteBytes;
// @ts-expect-error: an unknown option is refused
openRoot({ root: ".", includes: ["**"] });
`,
  );
  writeFileSync(
    join(project, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: {
        target: "ES2022",
        module: "NodeNext",
        moduleResolution: "NodeNext",
        strict: true,
        noEmit: true,
        // The declarations are still what types the consumer (the @ts-expect-error lines
        // prove they are not `any`); checking the SDK's and zod's own .d.ts files is slow.
        skipLibCheck: true,
        types: [],
      },
      files: ["consumer.ts"],
    }),
  );
  const tsc = join(NPM_OUT, "node_modules", "typescript", "bin", "tsc");
  assertRan(run(process.execPath, [tsc, "-p", project], { cwd: project }), "tsc");
  // The same check fails on a real type error, so it is not passing vacuously.
  writeFileSync(
    join(project, "consumer.ts"),
    `import { DEFAULT_LIMITS } from "ptc-fs-mcp";\n` +
      `export const wrong: string = DEFAULT_LIMITS.maxWriteBytes;\n`,
  );
  const broken = run(process.execPath, [tsc, "-p", project], { cwd: project });
  assert.notEqual(broken.status, 0);
  assert.match(broken.stdout, /TS2322/);
});

test("npm: examples/embed.mjs writes, reads back and searches over the in-memory transport", {
  skip: NODE_ONLY,
}, async () => {
  const { project } = await installed();
  copyFileSync(join(REPO, "examples", "embed.mjs"), join(project, "embed.mjs"));
  const result = run(process.execPath, ["embed.mjs"], { cwd: project });
  assertRan(result, "node embed.mjs");
  assert.match(result.stdout, /> write_text_file /);
  assert.match(result.stdout, /> read_text_file /);
  assert.match(result.stdout, /> search_text /);
  assert.match(result.stdout, /ok: the write and the read agree\n$/);
});

// --- the host document ----------------------------------------------------------------------------

type Transport = {
  type: string;
  command: string;
  args: string[];
  env?: Record<string, string>;
  inherit_environment?: boolean;
};
type Install = {
  source: string;
  installation_revision: string;
  transport: Transport;
  tools: Record<string, Mapping>;
};
type Mapping = { as: string; effect: "read" | "write" };
const installs = hostDocument.install as Record<string, Install>;

function rootOf(install: Install): string {
  const args: string[] = install.transport.args;
  return args[args.indexOf("--root") + 1];
}

test("host document: valid against PtcRunner's host-document schema, with the rules its loader adds", () => {
  // A copy of PtcRunner's published schema (tests/fixtures/ptc-host-config/README.md says whence).
  const schema = JSON.parse(
    readFileSync(join(REPO, "tests", "fixtures", "ptc-host-config", "schema.json"), "utf8"),
  );
  const validate = new Ajv2020({ strict: false, allErrors: true, validateFormats: false }).compile(schema);
  assert.ok(validate(hostDocument), JSON.stringify(validate.errors, null, 2));
  // The loader's own rules: public names unique across installs, effects as the tools' annotations say.
  const publicNames = Object.values(installs).flatMap((i) => Object.values(i.tools).map((m) => m.as));
  assert.equal(new Set(publicNames).size, publicNames.length, "every `as` name is unique");
  for (const [name, install] of Object.entries(installs)) {
    assert.equal(install.source, "mcp", name);
    assert.ok(
      install.installation_revision.startsWith(`ptc-fs-mcp-${VERSION}`),
      install.installation_revision,
    );
    for (const [upstream, mapping] of Object.entries(install.tools)) {
      assert.ok(TOOL_NAMES.includes(upstream), upstream);
      assert.equal(mapping.effect, upstream === "write_text_file" ? "write" : "read", `${name}.${upstream}`);
    }
  }
});

test("host document: npx pinned to this version, and a hermetic install with no environment", () => {
  const npx = installs.workspace.transport;
  assert.equal(npx.type, "stdio");
  assert.equal(npx.command, "npx");
  assert.ok(npx.args.includes("-y"));
  assert.ok(npx.args.includes(`ptc-fs-mcp@${VERSION}`), "pinned to the package version");
  assert.equal(npx.inherit_environment, true);
  assert.deepEqual(Object.keys(installs.workspace.tools), TOOL_NAMES);

  const hermetic = installs.hermetic_workspace.transport;
  assert.equal(hermetic.inherit_environment, false);
  assert.deepEqual(hermetic.env, {});
  assert.ok(isAbsolute(hermetic.command));
  assert.ok(hermetic.args[0].endsWith("/node_modules/ptc-fs-mcp/dist/cli.js"));
  assert.ok(isAbsolute(hermetic.args[0]));
  assert.ok(isAbsolute(rootOf(installs.hermetic_workspace)));
});

test("host document: authority is split across two installs on different roots", () => {
  const mapped = (install: Install) => Object.keys(install.tools);
  const readers = Object.values(installs).filter((i) => mapped(i).join() === "read_text_file");
  const writers = Object.values(installs).filter((i) => mapped(i).join() === "write_text_file");
  assert.equal(readers.length, 1, "exactly one install maps only read_text_file");
  assert.equal(writers.length, 1, "exactly one install maps only write_text_file");
  assert.notEqual(rootOf(readers[0]), rootOf(writers[0]));
});

test("npm: the host document's hermetic installs start exactly as written, once placeholders are filled", {
  skip: NODE_ONLY,
}, async () => {
  const { project } = await installed();
  const roots = {
    workspace: makeRoot({ "a.md": "workspace file\n" }),
    reference: makeRoot({ "guide.md": "reference text\n" }),
    drafts: makeRoot({}),
  };
  const fill: Record<string, string> = {
    [`${PLACEHOLDER}bin/node`]: process.execPath,
    [`${PLACEHOLDER}node_modules/ptc-fs-mcp/dist/cli.js`]: resolveCli(project),
    [`${PLACEHOLDER}workspace`]: roots.workspace.path,
    [`${PLACEHOLDER}reference`]: roots.reference.path,
    [`${PLACEHOLDER}drafts`]: roots.drafts.path,
  };
  const substitute = (value: string) => fill[value] ?? value;
  const start = (name: string, requests: { method: string; params?: Record<string, unknown> }[]) => {
    const { command, args, env, inherit_environment } = installs[name].transport;
    assert.equal(inherit_environment, false);
    const argv: string[] = [command, ...args].map(substitute);
    assert.ok(!argv.some((a) => a.includes(PLACEHOLDER)), "every placeholder is filled");
    return converse(argv[0], argv.slice(1), { env: { ...env }, cwd: tmpdir() }, requests);
  };
  try {
    const hermetic = await start("hermetic_workspace", [DISCOVER, call("search_files", { query: ".md" })]);
    assert.deepEqual(hermetic.answers[0].result.capabilities, { tools: {} });
    assert.deepEqual(hermetic.answers[1].result.structuredContent.items, [{ path: "a.md" }]);
    assert.equal(hermetic.code, 0);

    const reader = await start("reference_reader", [call("read_text_file", { path: "guide.md" })]);
    assert.equal(reader.answers[0].result.structuredContent.items[0].text, "reference text\n");

    const writer = await start("drafts_writer", [
      call("write_text_file", { path: "draft.md", content: "d\n" }),
    ]);
    assert.equal(writer.answers[0].result.structuredContent.content_hash, contentHash("d\n"));
    assert.equal(readFileSync(join(roots.drafts.path, "draft.md"), "utf8"), "d\n");
  } finally {
    Object.values(roots).forEach((root) => root.cleanup());
  }
});

// --- Deno: the source tree ------------------------------------------------------------------------

test("deno: examples/embed.ts writes, reads back and searches over the in-memory transport", {
  skip: DENO_ONLY,
}, () => {
  const result = run(process.execPath, [
    "run",
    "--no-prompt",
    "--allow-read",
    "--allow-write",
    join(REPO, "examples", "embed.ts"),
  ], { cwd: REPO });
  assertRan(result, "deno run examples/embed.ts");
  assert.match(result.stdout, /> write_text_file /);
  assert.match(result.stdout, /> search_text /);
  assert.match(result.stdout, /ok: the write and the read agree\n$/);
});

test("deno: the demo prints a session transcript and exits 0", { skip: DENO_ONLY }, () => {
  const workspace = makeRoot();
  try {
    const result = run(process.execPath, [
      "run",
      "--no-prompt",
      "--allow-read",
      `--allow-write=${workspace.path}`,
      "--allow-run",
      join(REPO, "scripts", "demo.ts"),
      "--workspace",
      workspace.path,
    ], { cwd: REPO });
    assertRan(result, "scripts/demo.ts");
    assert.match(result.stdout, new RegExp(`← tools: ${TOOL_NAMES.join(", ")}\n`));
    assert.match(result.stdout, /content_hash of the read equals the write's/);
    for (const tool of TOOL_NAMES) assert.match(result.stdout, new RegExp(`"name":"${tool}"`));
    assert.ok(existsSync(join(workspace.path, "demo-note.md")));
  } finally {
    workspace.cleanup();
  }
});

test("deno: deno publish --dry-run passes", { skip: DENO_ONLY }, (t) => {
  const result = run(process.execPath, ["publish", "--dry-run", "--allow-dirty"], { cwd: REPO });
  const output = `${result.stdout}\n${result.stderr}`;
  if (result.status !== 0 && /error sending request|dns error|failed to fetch|network/i.test(output)) {
    t.skip("deno publish --dry-run needs the network here");
    return;
  }
  assertRan(result, "deno publish --dry-run");
  assert.match(output, /Dry run complete/);
});
