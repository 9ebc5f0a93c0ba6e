/**
 * The runtime registry: how the benchmark starts the real server, the bare
 * floors (`bare_server.mjs`) and an empty process, on Node (the npm build)
 * and on Deno (a checkout's `cli.ts`).
 *
 * @module
 */
import { RpcClient, timeSpawn } from "./rpc.ts";
import type { RuntimeName } from "./report.ts";

/** A mode of `bare_server.mjs`: `noop` needs no pages file, the others do. */
export type BareMode = "noop" | "mcp" | "server" | "raw" | "calls" | "syscalls" | "work" | "extents";

/** One runtime the benchmark measures. */
export interface Runtime {
  readonly name: RuntimeName;
  /** Starts the real server on `root` with `--include '**'` and `extra` flags. */
  server(root: string, extra?: string[]): RpcClient;
  /**
   * Deno only: the same server run with `--allow-all`, under which Deno checks no path. Under any grant, even
   * an unscoped `--allow-read`, it checks every path a call names: this measures what those checks cost.
   */
  uncheckedServer?(root: string): RpcClient;
  /**
   * Starts a bare floor server; the replay modes answer from `pagesFile`. `target`: the root `syscalls`
   * and `work` make the recorded operations in, or the file `extents` reads (on Deno, read permission on it).
   */
  bare(mode: BareMode, pagesFile?: string, target?: string): RpcClient;
  /**
   * Node only: the `noop` floor (`bare_noop.mjs`) bundled into one minified file the way the npm bin is (the
   * SDK's `browser` shims), which Node compiles at once rather than loading the SDK module by module.
   */
  bundledNoop?(): RpcClient;
  /** Runs a plain script of `scripts/bench/` with `args`, allowed to read `read`; returns its stdout. */
  script(name: string, args: string[], read: string[]): Promise<string>;
  /** Times the runtime's empty start, the cold-start baseline. */
  empty(): Promise<number>;
  /** The empty start as the table shows it. */
  readonly emptyText: string;
}

/** Where the runtimes come from. */
export interface Sources {
  /** This repository. */
  repo: string;
  /** The npm build the Node server runs. */
  npm: string;
  /** The checkout whose `cli.ts` the Deno server runs. */
  denoRepo: string;
  /** Where Node servers write V8 CPU profiles, if anywhere. */
  profile?: string;
}

const DENO = Deno.execPath();

/** Runs a command to its end and returns its stdout; throws with its stderr when it fails. */
async function output(cmd: string, args: string[]): Promise<string> {
  const out = await new Deno.Command(cmd, { args, stdout: "piped", stderr: "piped" }).output();
  const decoder = new TextDecoder();
  if (!out.success) throw new Error(`${cmd} ${args.join(" ")} failed: ${decoder.decode(out.stderr)}`);
  return decoder.decode(out.stdout);
}

function nodeRuntime({ repo, npm, profile }: Sources): Runtime {
  const prof = profile ? ["--cpu-prof", `--cpu-prof-dir=${profile}`] : [];
  return {
    name: "node",
    server: (root, extra = []) =>
      new RpcClient(
        "node",
        [...prof, `${npm}/dist/cli.js`, "--root", root, "--include", "**", ...extra],
        "node server",
      ),
    bare: (mode, pagesFile, target) =>
      new RpcClient(
        "node",
        [`${npm}/.bench/bare_server.mjs`, mode, ...[pagesFile, target].filter((a) => a !== undefined)],
        `node ${mode}`,
      ),
    bundledNoop: () => new RpcClient("node", [`${npm}/.bench/${BUNDLED_NOOP}`], "node bundled noop"),
    script: (name, args) => output("node", [`${repo}/scripts/bench/${name}`, ...args]),
    empty: () => timeSpawn("node", ["-e", "0"]),
    emptyText: "`node -e 0`",
  };
}

/** The V8 flags of the README's Deno command (and `deno task start`). */
const DENO_V8_FLAGS = "--max-semi-space-size=1,--heap-growing-percent=20,--memory-saver-mode";

function denoRuntime({ repo, denoRepo }: Sources): Runtime {
  // As the README recommends for Deno: a young generation of one MiB semi-spaces, an old one collected once
  // it grew by 20% and compacted to give its free pages back (Deno cannot set them from inside; Node's
  // binary sets its own, src/cli/node_heap.ts).
  const run = ["run", "--no-prompt", `--v8-flags=${DENO_V8_FLAGS}`];
  const denoServer = (grant: string[], root: string, extra: string[], kind = "") =>
    new RpcClient(
      DENO,
      [...run, ...grant, `${denoRepo}/cli.ts`, "--root", root, "--include", "**", ...extra],
      `deno ${kind}server`,
      denoRepo,
    );
  return {
    name: "deno",
    server: (root, extra = []) => denoServer([`--allow-read=${root}`, `--allow-write=${root}`], root, extra),
    uncheckedServer: (root) => denoServer(["--allow-all"], root, [], "--allow-all "),
    bare: (mode, pagesFile, target) => {
      const files = [pagesFile, target].filter((a) => a !== undefined);
      const allow = files.length === 0 ? [] : [`--allow-read=${files.join(",")}`];
      return new RpcClient(
        DENO,
        [...run, ...allow, `${repo}/scripts/bench/bare_server.mjs`, mode, ...files],
        `deno ${mode}`,
        repo,
      );
    },
    script: (name, args, read) =>
      output(DENO, [
        ...run,
        `--allow-read=${[repo, ...read].join(",")}`,
        `${repo}/scripts/bench/${name}`,
        ...args,
      ]),
    empty: () => timeSpawn(DENO, ["eval", "0"]),
    emptyText: "`deno eval 0`",
  };
}

/** The runtimes `--runtime` names (`node`, `deno` or `both`), Node first. */
export function runtimes(which: string, sources: Sources): Runtime[] {
  if (which !== "node" && which !== "deno" && which !== "both") throw new Error(`unknown runtime ${which}`);
  return [
    ...(which === "deno" ? [] : [nodeRuntime(sources)]),
    ...(which === "node" ? [] : [denoRuntime(sources)]),
  ];
}

/** `bare_noop.mjs` bundled with what it imports, in the npm build's `.bench/`. */
const BUNDLED_NOOP = "bare_noop.bundle.mjs";

/**
 * Makes the Node side runnable: builds the npm package when `dist/cli.js` is
 * missing, puts `bare_server.mjs` and `bare_noop.mjs` beside its
 * `node_modules`, where Node resolves the SDK from, and bundles the latter
 * from there into one file as `scripts/build_npm.ts` bundles the bin
 * (`bundledNoop`).
 */
export async function prepareNode({ repo, npm }: Sources): Promise<void> {
  try {
    await Deno.stat(`${npm}/dist/cli.js`);
  } catch {
    console.error(`bench: ${npm}/dist/cli.js is missing; building the npm package ...`);
    const out = await new Deno.Command(DENO, {
      args: ["run", "-A", `${repo}/scripts/build_npm.ts`, "--out", npm],
      cwd: repo,
      stdout: "inherit",
      stderr: "inherit",
    }).output();
    if (!out.success) throw new Error("the npm build failed");
  }
  await Deno.mkdir(`${npm}/.bench`, { recursive: true });
  for (const script of ["bare_server.mjs", "bare_noop.mjs"]) {
    await Deno.copyFile(`${repo}/scripts/bench/${script}`, `${npm}/.bench/${script}`);
  }
  const bundle = await new Deno.Command(DENO, {
    args: [
      "bundle",
      "--quiet",
      "--no-config",
      "--platform=node",
      "--node-modules-dir=manual",
      "--minify",
      "--keep-names",
      "--output",
      `.bench/${BUNDLED_NOOP}`,
      ".bench/bare_noop.mjs",
    ],
    cwd: npm,
    env: { DENO_CONDITIONS: "browser" }, // the bin's condition: the SDK's shims without ajv
    stdout: "inherit",
    stderr: "inherit",
  }).output();
  if (!bundle.success) throw new Error("bundling bare_noop.mjs failed");
}

/** The machine and the runtimes' versions, for the report. */
export async function machine(): Promise<string> {
  const sh = async (script: string) => {
    const out = await new Deno.Command("sh", { args: ["-c", script], stdout: "piped" }).output();
    return new TextDecoder().decode(out.stdout).trim();
  };
  const cpu = await sh("grep -m1 'model name' /proc/cpuinfo | cut -d: -f2");
  const cores = await sh("nproc");
  const mem = await sh("awk '/MemTotal/ {printf \"%.0f GiB\", $2/1048576}' /proc/meminfo");
  const node = await sh("node --version");
  return `${cpu}, ${cores} cores, ${mem}; Linux ${Deno.osRelease()}; Node ${node}, Deno ${Deno.version.deno}`;
}

/** The load average now: the machine is shared, so the report says how busy it was. */
export function loadText(): string {
  return Deno.loadavg().map((l) => l.toFixed(2)).join(" ");
}
