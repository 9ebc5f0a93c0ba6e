/**
 * The short version of every stress campaign (`deno task stress` runs the
 * long ones), against the real server of this suite's runtime. A failure
 * message carries the seed; `deno task stress --seed N --only NAME --quick`
 * replays it.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import process from "node:process";
import { RUNTIME, serverCommand } from "./_harness.ts";
import { CAMPAIGNS, deriveSeed, type Target } from "../scripts/stress/mod.ts";

const target: Target = { runtime: RUNTIME, command: serverCommand };
const fixed = process.env.PTC_FS_MCP_STRESS_SEED;
const seed = fixed !== undefined ? Number(fixed) : Math.floor(Math.random() * 2 ** 31);

/** Runs one campaign's short version with a run seed; asserts it found no failure. */
async function runShort(name: string, runSeed: number): Promise<void> {
  const campaign = CAMPAIGNS.find((c) => c.name === name)!;
  const result = await campaign.run({ target, seed: deriveSeed(runSeed, name), scale: "short" });
  assert.ok(result.iterations > 0, `${name} ran no iteration`);
  assert.equal(
    result.failures,
    0,
    `seed ${runSeed} (replay: deno task stress --quick --runtime ${RUNTIME} --seed ${runSeed} --only ` +
      `${name}):\n${result.notes.join("\n")}`,
  );
}

for (const campaign of CAMPAIGNS) {
  test(`${RUNTIME}: stress campaign ${campaign.name} (short) finds no failure`, () =>
    runShort(campaign.name, seed));
}

/** Seeds that once found a failure, replayed on every run: the campaign, the run seed, what it found. */
const REGRESSIONS: [string, number, string][] = [
  [
    "cancel",
    848546036,
    "a yield to an already expired timer let Deno skip stdin: a cancelled search was answered",
  ],
];

for (const [name, runSeed, found] of REGRESSIONS) {
  test(`${RUNTIME}: stress campaign ${name} with seed ${runSeed} (it found: ${found})`, () =>
    runShort(name, runSeed));
}
