/**
 * The turn a long scan yields to (`inputTurnFor`): by the time it resolves, the event loop has read the input
 * that was waiting. The probe is a pipe from a child `cat`: a line it echoes is waiting before the turn starts,
 * which starts, as a call's scan does, in the callback that read the line before it.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import process from "node:process";
import { setImmediate } from "node:timers";
import { inputTurnFor, Pacer, PATIENT_PAUSE_EVERY, YIELD_EVERY_MS } from "../src/pacing.ts";
import { openRoot } from "../mod.ts";
import { makeRoot, RUNTIME } from "./_harness.ts";

/** Whether a line waiting in a pipe before `turn` starts has been read when it resolves. */
async function readsWaitingInput(turn: () => Promise<void>): Promise<boolean> {
  const echo = spawn("cat", [], { stdio: ["pipe", "pipe", "ignore"] });
  try {
    let received = "";
    echo.stdout.setEncoding("utf8");
    const first = new Promise<void>((resolve) => echo.stdout.once("data", () => resolve()));
    echo.stdin.write("start\n");
    await first; // from here on, in the callback that read the first line, as a call's scan starts
    echo.stdout.on("data", (chunk: string) => (received += chunk));
    echo.stdin.write("probe\n");
    const until = performance.now() + 50;
    while (performance.now() < until) {
      // busy, as a scan is, while `cat` echoes the line: it is waiting in the pipe
    }
    await turn();
    return received.includes("probe");
  } finally {
    echo.kill();
  }
}

test(`${RUNTIME}: a scan's default turn, a fresh timer then an immediate, reads waiting input`, async () => {
  for (let i = 0; i < 5; i++) assert.ok(await readsWaitingInput(inputTurnFor({})), `round ${i}`);
});

test(
  "node: the Node port's turn, two immediates, reads waiting input; one immediate does not",
  { skip: RUNTIME !== "node" },
  async () => {
    for (let i = 0; i < 5; i++) {
      assert.ok(await readsWaitingInput(inputTurnFor({ inputTurn: "immediates" })), `round ${i}`);
    }
    // The first immediate still runs in the loop that read the line before, with no poll since: why the
    // turn is two.
    const one = () => new Promise<void>((resolve) => setImmediate(resolve));
    assert.equal(await readsWaitingInput(one), false);
  },
);

test(`${RUNTIME}: a call pauses in quick turns, every ${PATIENT_PAUSE_EVERY}th in the patient one`, async () => {
  const tmp = makeRoot({ "a.txt": "a" });
  try {
    const taken: string[] = [];
    const turns = {
      quick: () => Promise.resolve(void taken.push("q")),
      patient: () => Promise.resolve(void taken.push("P")),
    };
    const pacer = new Pacer(
      openRoot({ root: tmp.path, include: ["**"] }),
      new AbortController().signal,
      turns,
    );
    for (let i = 0; i < 2 * PATIENT_PAUSE_EVERY; i++) {
      const until = performance.now() + YIELD_EVERY_MS;
      while (performance.now() < until) {
        // busy past the time between pauses
      }
      await pacer.checkpoint();
      assert.equal(pacer.pauses, i + 1);
      await pacer.checkpoint();
      assert.equal(pacer.pauses, i + 1); // no pause right after one
    }
    // The count of turns is the process's (calls share them): one in every PATIENT_PAUSE_EVERY is patient.
    const patient = [...taken.keys()].filter((i) => taken[i] === "P");
    assert.equal(patient.length, 2, taken.join(""));
    assert.equal(patient[1] - patient[0], PATIENT_PAUSE_EVERY, taken.join(""));
  } finally {
    tmp.cleanup();
  }
});

test(`${RUNTIME}: quick turns hold no memory: RSS stays flat over 20,000 more, 40,000 channels`, async () => {
  const here = dirname(fileURLToPath(import.meta.url));
  const script = join(here, `_quick_turns.${RUNTIME === "deno" ? "ts" : "js"}`);
  const argv = RUNTIME === "deno" ? ["run", "--no-prompt", script] : [script];
  const child = spawn(process.execPath, argv, { stdio: ["ignore", "pipe", "inherit"] });
  let out = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => out += chunk);
  const code = await new Promise((resolve) => child.on("close", resolve));
  assert.equal(code, 0);
  // Without a leak the heap still grows by 15-20 MB here; a channel left open kept about 5 KB on Deno:
  // 40,000 of them about 200 MB.
  const { grownMiB } = JSON.parse(out);
  assert.ok(grownMiB < 64, `RSS grew by ${grownMiB.toFixed(1)} MiB`);
});

test(`${RUNTIME}: long calls share the slice between two reads of input, and take it in turn`, async () => {
  const tmp = makeRoot({ "a.txt": "a" });
  try {
    const root = openRoot({ root: tmp.path, include: ["**"] });
    const immediate = () => new Promise<void>((resolve) => setImmediate(resolve));
    const turn = async () => {
      await immediate();
      await immediate();
    };
    const turns = { quick: turn, patient: turn };
    // The loop's iterations, counted once each by an immediate that queues itself again: input is read
    // between two of them.
    let loop = 0;
    let done = false;
    const tick = () => {
      loop++;
      if (!done) setImmediate(tick);
    };
    setImmediate(tick);
    const chunks: number[] = []; // by loop iteration: the pieces of work done in it
    const who: number[][] = []; // by loop iteration: which call did each
    const call = async (id: number) => {
      const pacer = new Pacer(root, new AbortController().signal, turns);
      for (let chunk = 0; chunk < 25; chunk++) {
        await pacer.checkpoint();
        const until = performance.now() + YIELD_EVERY_MS / 5;
        while (performance.now() < until) {
          // a fifth of a slice of work, as a scan's window or a directory is
        }
        chunks[loop] = (chunks[loop] ?? 0) + 1;
        (who[loop] ??= []).push(id);
      }
    };
    await Promise.all([call(0), call(1), call(2)]);
    done = true;
    // Each call counting its own time, the three ran 10 ms each between two reads of input (15 pieces). Sharing
    // it, they run 10 ms in all (5 pieces), and at most the piece each call was let into before: a call that
    // passed its checkpoint runs after the others' pieces already under way.
    const most = Math.max(...chunks.filter((n) => n !== undefined));
    assert.ok(most <= 8, `${most} pieces of work between two reads of input`);
    // And none waits for another to finish: each call worked within the first few slices.
    const early = who.filter((ids) => ids !== undefined).slice(0, 6).flat();
    assert.deepEqual(new Set(early), new Set([0, 1, 2]), `the first slices went to ${early}`);
  } finally {
    tmp.cleanup();
  }
});
