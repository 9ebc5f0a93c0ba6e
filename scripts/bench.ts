/**
 * `deno task bench`: drives the real server over stdio, on Node (the npm
 * build) and on Deno, through deterministic cached corpora, and prints one
 * markdown table in which every figure is measured in the same run: ratios
 * to a baseline (medians over repetitions, baseline and server interleaved
 * so that load from other processes hits both alike; a traversal times both
 * runtimes' servers in one loop, against one baseline), and Deno's figure
 * over Node's. Every traversal is checked for correctness (match sets against
 * `grep`/`find`, sha256 of the reconstructed file), so a fast wrong answer
 * fails the run.
 *
 * The process exits 1 when a correctness check fails or a server breaks,
 * and 0 otherwise: a missed target is a finding the table shows, not an error.
 *
 * Usage: deno task bench [--quick] [--only a,b] [--runtime node|deno|both]
 *                        [--npm DIR] [--deno-repo DIR] [--huge | --no-huge]
 *                        [--reps N] [--profile DIR] [--verbose]
 *
 * `--reps N`: timed repetitions (default 3, 2 with `--quick`); the judged
 * traversals, warm and cold, run three times as many.
 * `--npm DIR`: the npm build the Node server runs (default `npm/`, built
 * first when `dist/cli.js` is missing). `--deno-repo DIR`: a checkout whose
 * `cli.ts` the Deno server runs (default this one). `--profile DIR`: the
 * Node servers write V8 CPU profiles there (summarise them with
 * `scripts/bench/profile.ts`). One file per scenario in `scripts/bench/scenarios/`.
 *
 * @module
 */
import { parseArgs } from "node:util";
import { type Context, makeContext, type Scenario } from "./bench/context.ts";
import { CACHE_DIR, FULL, QUICK } from "./bench/corpus.ts";
import { render, type Row } from "./bench/report.ts";
import { loadText, machine, prepareNode, runtimes } from "./bench/runtimes.ts";
import { cold } from "./bench/scenarios/cold.ts";
import { coldStart } from "./bench/scenarios/cold_start.ts";
import { floor } from "./bench/scenarios/floor.ts";
import { growthFile } from "./bench/scenarios/growth_file.ts";
import { growthLine } from "./bench/scenarios/growth_line.ts";
import { growthTree } from "./bench/scenarios/growth_tree.ts";
import { huge } from "./bench/scenarios/huge.ts";
import { bigDir } from "./bench/scenarios/big_dir.ts";
import { listAll } from "./bench/scenarios/list_all.ts";
import { listRoot } from "./bench/scenarios/list_root.ts";
import { read } from "./bench/scenarios/read.ts";
import { read1m } from "./bench/scenarios/read_1m.ts";
import { searchFiles } from "./bench/scenarios/search_files.ts";
import { searchText } from "./bench/scenarios/search_text.ts";
import { smallReads } from "./bench/scenarios/small_reads.ts";

/** The plan, in the order the scenarios run (the table groups their rows by section). */
const PLAN: [string, Scenario][] = [
  ["cold_start", coldStart],
  ["small_reads", smallReads],
  ["floor", floor],
  ["list_root", listRoot],
  ["search_text", searchText],
  ["search_files", searchFiles],
  ["list_all", listAll],
  ["cold", cold],
  ["read", read],
  ["read_1m", read1m],
  ["growth_tree", growthTree],
  ["growth_file", growthFile],
  ["growth_line", growthLine],
  ["big_dir", bigDir],
  ["huge", huge],
];
const NAMES = PLAN.map(([id]) => id);

const { values: flags } = parseArgs({
  args: Deno.args,
  options: {
    quick: { type: "boolean", default: false },
    only: { type: "string" },
    runtime: { type: "string", default: "both" },
    npm: { type: "string" },
    "deno-repo": { type: "string" },
    huge: { type: "boolean" },
    "no-huge": { type: "boolean" },
    reps: { type: "string" },
    profile: { type: "string" },
    verbose: { type: "boolean", default: false },
    help: { type: "boolean", default: false },
  },
});
if (flags.help) {
  console.log(
    "Usage: deno task bench [--quick] [--only a,b] [--runtime node|deno|both] [--npm DIR]\n" +
      "                       [--deno-repo DIR] [--huge | --no-huge] [--reps N] [--profile DIR]\n" +
      "                       [--verbose]\n" +
      `Scenarios: ${NAMES.join(", ")} (huge runs by default only without --quick)`,
  );
  Deno.exit(0);
}

const only = new Set((flags.only ?? "").split(",").filter((s) => s !== ""));
for (const id of only) {
  if (!NAMES.includes(id)) {
    console.error(`bench: unknown scenario ${id}; the scenarios are ${NAMES.join(", ")}`);
    Deno.exit(64);
  }
}
const reps = flags.reps === undefined ? (flags.quick ? 2 : 3) : Number(flags.reps);
if (!Number.isInteger(reps) || reps < 1) {
  console.error(`bench: --reps must be a positive integer, not ${flags.reps}`);
  Deno.exit(64);
}
const wantHuge = flags["no-huge"] ? false : flags.huge ? true : only.has("huge") || !flags.quick;
const selected = (id: string) => only.size > 0 ? only.has(id) : id === "huge" ? wantHuge : true;

if (!["node", "deno", "both"].includes(flags.runtime)) {
  console.error(`bench: --runtime is node, deno or both, not ${flags.runtime}`);
  Deno.exit(64);
}
const repo = new URL("..", import.meta.url).pathname.replace(/\/$/, "");
const sources = {
  repo,
  npm: (flags.npm ?? `${repo}/npm`).replace(/\/$/, ""),
  denoRepo: (flags["deno-repo"] ?? repo).replace(/\/$/, ""),
  profile: flags.profile,
};
const ctx: Context = makeContext({
  runtimes: runtimes(flags.runtime, sources),
  sizes: flags.quick ? QUICK : FULL,
  reps,
  quick: flags.quick,
  verbose: flags.verbose,
});

const started = performance.now();
const machineText = `${await machine()}; load average at start ${loadText()}`;
if (ctx.runtimes.some((r) => r.name === "node")) await prepareNode(sources);

const rows: Row[] = [];
const notes: string[] = [];
const figures: string[] = [];
const failures: string[] = [];
for (const [id, scenario] of PLAN) {
  if (!selected(id)) continue;
  console.error(`bench: ${id} ...`);
  try {
    const outcome = await scenario(ctx);
    rows.push(...outcome.rows);
    notes.push(...outcome.notes ?? []);
    figures.push(...outcome.figures ?? []);
  } catch (error) {
    const message = `${id}: ${error instanceof Error ? error.message : String(error)}`;
    failures.push(message);
    console.error(`bench: FAILED ${message}`);
  }
}

const output = render({
  title: `ptc-fs-mcp benchmark${
    flags.quick ? " (--quick: small corpora, not comparable to the targets)" : ""
  }`,
  machine: `${machineText}, at the end ${loadText()}`,
  reps: ctx.reps,
  traversalReps: ctx.traversalReps,
  rounds: ctx.sizes.callRounds,
  rows,
  notes,
  figures,
  failures,
  seconds: (performance.now() - started) / 1000,
  cacheDir: CACHE_DIR,
});
console.log(output);
await Deno.writeTextFile(`${CACHE_DIR}/last-run.md`, output + "\n");
if (failures.length > 0) Deno.exit(1);
