/**
 * `deno task stress`: the long stress campaigns against the real server over
 * stdio, on Deno (`deno run` with root-scoped permissions) and on Node (the
 * npm build's `dist/cli.js`). Prints one table row per campaign and runtime
 * — campaign | runtime | iterations | failures | seed — then the first
 * failure messages, and exits non-zero on any failure.
 *
 * Usage: deno task stress [--seed N] [--runtime deno|node|both] [--quick]
 *                         [--only NAME[,NAME]] [--npm DIR]
 *
 * `--seed N` replays a run (each campaign derives its own seed from N and its
 * name, so `--only` replays one campaign alone). `--quick` runs the short
 * versions (the ones the test suite runs). `--npm DIR` is the npm build to
 * drive for Node (default `<repo>/npm`; build it with `deno task build:npm`).
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { type CampaignResult, CAMPAIGNS, deriveSeed, type Runtime, type Target } from "./stress/mod.ts";

const repo = new URL("..", import.meta.url).pathname.replace(/\/$/, "");

function flag(name: string): string | undefined {
  const i = Deno.args.indexOf(`--${name}`);
  return i >= 0 ? Deno.args[i + 1] : undefined;
}

function usage(message: string): never {
  console.error(`stress: ${message}`);
  console.error(
    "usage: deno task stress [--seed N] [--runtime deno|node|both] [--quick] [--only NAME] [--npm DIR]",
  );
  Deno.exit(64);
}

const seedFlag = flag("seed");
const seed = seedFlag === undefined ? Math.floor(Math.random() * 2 ** 31) : Number(seedFlag);
if (!Number.isSafeInteger(seed) || seed < 0) usage("--seed must be a non-negative integer");
const runtimeFlag = flag("runtime") ?? "both";
if (!["deno", "node", "both"].includes(runtimeFlag)) usage("--runtime must be deno, node or both");
const runtimes: Runtime[] = runtimeFlag === "both" ? ["deno", "node"] : [runtimeFlag as Runtime];
const scale = Deno.args.includes("--quick") ? "short" : "long";
const only = flag("only")?.split(",");
const unknown = only?.filter((name) => !CAMPAIGNS.some((c) => c.name === name));
if (unknown?.length) {
  usage(`unknown campaign ${unknown.join(", ")}; known: ${CAMPAIGNS.map((c) => c.name).join(", ")}`);
}
const npm = (flag("npm") ?? join(repo, "npm")).replace(/\/$/, "");
const nodeCli = join(npm, "dist", "cli.js");
if (runtimes.includes("node") && !existsSync(nodeCli)) {
  usage(`${nodeCli} does not exist: build it with deno task build:npm (or pass --npm DIR)`);
}

const targets: Record<Runtime, Target> = {
  deno: {
    runtime: "deno",
    command: (root, args) => ({
      cmd: Deno.execPath(),
      args: [
        "run",
        "--no-prompt",
        `--allow-read=${root}`,
        `--allow-write=${root}`,
        join(repo, "cli.ts"),
        ...args,
      ],
    }),
  },
  node: { runtime: "node", command: (_root, args) => ({ cmd: "node", args: [nodeCli, ...args] }) },
};

console.log(`stress: seed ${seed}, ${scale} campaigns, runtime ${runtimeFlag} (replay: --seed ${seed})`);
const results: CampaignResult[] = [];
for (const runtime of runtimes) {
  for (const campaign of CAMPAIGNS) {
    if (only && !only.includes(campaign.name)) continue;
    const started = Date.now();
    let result: CampaignResult;
    const campaignSeed = deriveSeed(seed, campaign.name);
    try {
      result = await campaign.run({ target: targets[runtime], seed: campaignSeed, scale });
    } catch (error) {
      result = {
        campaign: campaign.name,
        runtime,
        seed: campaignSeed,
        iterations: 0,
        failures: 1,
        notes: [`the campaign crashed: ${error instanceof Error ? error.stack : String(error)}`],
        errorTexts: 0,
        hygieneFailures: 0,
      };
    }
    results.push(result);
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    console.log(
      `  ${campaign.name} on ${runtime}: ${result.iterations} iterations, ${result.failures} failures (${seconds} s)`,
    );
  }
}

const rows = [["campaign", "runtime", "iterations", "failures", "seed"]];
for (const r of results) {
  rows.push([r.campaign, r.runtime, String(r.iterations), String(r.failures), String(seed)]);
}
for (const runtime of runtimes) {
  const mine = results.filter((r) => r.runtime === runtime);
  const texts = mine.reduce((n, r) => n + r.errorTexts, 0);
  const leaks = mine.reduce((n, r) => n + r.hygieneFailures, 0);
  rows.push(["error-hygiene (all)", runtime, String(texts), String(leaks), String(seed)]);
}
const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
const line = (r: string[]) =>
  `| ${r.map((c, i) => (i >= 2 ? c.padStart(widths[i]) : c.padEnd(widths[i]))).join(" | ")} |`;
console.log("\n" + line(rows[0]));
console.log(`|${widths.map((w, i) => (i >= 2 ? "-".repeat(w + 1) + ":" : "-".repeat(w + 2))).join("|")}|`);
for (const r of rows.slice(1)) console.log(line(r));

console.log("");
for (const r of results) {
  if (r.notes.length === 0) continue;
  console.log(`${r.campaign} on ${r.runtime}:`);
  for (const note of r.notes) console.log(`  - ${note.replaceAll("\n", "\n    ")}`);
}
const failures = results.reduce((n, r) => n + r.failures, 0);
console.log(failures === 0 ? "stress: no failures" : `stress: ${failures} failures (replay: --seed ${seed})`);
Deno.exit(failures === 0 ? 0 : 1);
