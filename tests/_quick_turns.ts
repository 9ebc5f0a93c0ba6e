/**
 * `_quick_turns.<ext>`: takes 10,000 quick turns (`quickTurnFor`, two messages through fresh channels each),
 * for the heap to reach its working size, then 20,000 more, and prints how much RSS those added, in MiB. A
 * child of its own, so no test runner's bookkeeping counts.
 *
 * @module
 */
import process from "node:process";
import { quickTurnFor } from "../src/pacing.ts";

const turn = quickTurnFor({});
for (let i = 0; i < 10_000; i++) await turn();
const before = process.memoryUsage().rss;
for (let i = 0; i < 20_000; i++) await turn();
console.log(JSON.stringify({ grownMiB: (process.memoryUsage().rss - before) / 2 ** 20 }));
