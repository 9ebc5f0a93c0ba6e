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

for (const campaign of CAMPAIGNS) {
  test(`${RUNTIME}: stress campaign ${campaign.name} (short) finds no failure`, async () => {
    const result = await campaign.run({ target, seed: deriveSeed(seed, campaign.name), scale: "short" });
    assert.ok(result.iterations > 0, `${campaign.name} ran no iteration`);
    assert.equal(
      result.failures,
      0,
      `seed ${seed} (replay: deno task stress --quick --runtime ${RUNTIME} --seed ${seed} --only ` +
        `${campaign.name}):\n${result.notes.join("\n")}`,
    );
  });
}
