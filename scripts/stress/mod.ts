/**
 * The stress campaigns, in the order they run. Each is bounded (it stops by
 * itself), counts its iterations and failures, and replays from its seed.
 * `scripts/stress.ts` runs the long versions; `tests/stress_short_test.ts`
 * the short ones, on the runtime of the suite.
 *
 * @module
 */
import { argumentsCampaign } from "./fuzz_arguments.ts";
import { cancelCampaign } from "./cancel.ts";
import { concurrencyCampaign } from "./concurrency.ts";
import { crashCampaign } from "./crash.ts";
import { cursorsCampaign } from "./fuzz_cursors.ts";
import { garbageCampaign } from "./garbage.ts";
import { longLineCampaign } from "./longline.ts";
import { rootSwapCampaign } from "./rootswap.ts";
import { excludedCampaign } from "./strace_sweep.ts";
import { pathsCampaign } from "./fuzz_paths.ts";
import { racesCampaign } from "./races.ts";
import { selectorCampaign } from "./fuzz_selector.ts";
import { shutdownCampaign } from "./shutdown.ts";
import type { Campaign } from "./util.ts";

export type { Campaign, CampaignOptions, CampaignResult, Scale } from "./util.ts";
export { deriveSeed } from "./util.ts";
export type { Runtime, Target } from "./peer.ts";

/** Every campaign. */
export const CAMPAIGNS: readonly Campaign[] = [
  pathsCampaign,
  selectorCampaign,
  cursorsCampaign,
  argumentsCampaign,
  garbageCampaign,
  racesCampaign,
  concurrencyCampaign,
  crashCampaign,
  cancelCampaign,
  shutdownCampaign,
  longLineCampaign,
  rootSwapCampaign,
  excludedCampaign,
];
