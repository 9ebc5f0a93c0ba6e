/**
 * The turn a long scan yields to (`inputTurnFor`): by the time it resolves, the event loop has read the input
 * that was waiting. The probe is a pipe from a child `cat`: a line it echoes is waiting before the turn starts,
 * which starts, as a call's scan does, in the callback that read the line before it.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { renameSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import process from "node:process";
import { setImmediate } from "node:timers";
import { inputTurnFor, Pacer, PATIENT_PAUSE_EVERY, YIELD_EVERY_MS } from "../src/pacing.ts";
import { openRoot, ROOT_MOVED_MESSAGE } from "../mod.ts";
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
    const who: number[][] = []; // by loop iteration: the call that did each piece of work in it
    const calls = 8;
    const call = async (id: number) => {
      const pacer = new Pacer(root, new AbortController().signal, turns);
      for (let piece = 0; piece < 25; piece++) {
        await pacer.checkpoint();
        const until = performance.now() + YIELD_EVERY_MS / 5;
        while (performance.now() < until) {
          // a fifth of a slice of work, as a scan's window or a directory is
        }
        (who[loop] ??= []).push(id);
      }
    };
    await Promise.all(Array.from({ length: calls }, (_, id) => call(id)));
    done = true;
    // The first slice is the calls' start, all at once. After it, each call counting its own time, the eight ran
    // 10 ms each between two reads of input (40 pieces); sharing it, they run 10 ms in all (5 pieces).
    const slices = who.filter((ids) => ids !== undefined).slice(1);
    const sizes = slices.map((ids) => ids.length).sort((a, b) => a - b);
    const median = sizes[sizes.length >> 1];
    assert.ok(median <= 6, `a median of ${median} pieces of work between two reads of input: ${sizes}`);
    // And in turn: the next slices go to every call, none waiting for another to finish.
    const next = new Set(slices.slice(0, calls).flat());
    assert.equal(next.size, calls, `the slices after the start went to ${[...next]}`);
  } finally {
    tmp.cleanup();
  }
});

test(`${RUNTIME}: a turn that throws still ends, and the calls after it pause as ever`, async () => {
  const tmp = makeRoot({ "a.txt": "a" });
  try {
    const root = openRoot({ root: tmp.path, include: ["**"] });
    const busy = () => {
      const until = performance.now() + YIELD_EVERY_MS;
      while (performance.now() < until) {
        // past the slice
      }
    };
    const throwing = () => {
      throw new Error("a turn that throws");
    };
    const broken = new Pacer(root, new AbortController().signal, { quick: throwing, patient: throwing });
    busy();
    await broken.checkpoint();
    assert.equal(broken.pauses, 1);
    const taken: string[] = [];
    const turn = () => Promise.resolve(void taken.push("turn"));
    const next = new Pacer(root, new AbortController().signal, { quick: turn, patient: turn });
    busy();
    await next.checkpoint(); // with the first turn left under way, this would never resolve
    assert.deepEqual(taken, ["turn"]);
  } finally {
    tmp.cleanup();
  }
});

test(`${RUNTIME}: a call that waited for another call's work checks the root pin, as after a pause`, async () => {
  const tmp = makeRoot({ "a.txt": "a" });
  const moved = `${tmp.path}-moved`;
  try {
    const root = openRoot({ root: tmp.path, include: ["**"] });
    const pacer = new Pacer(root, new AbortController().signal);
    assert.equal(await pacer.wait(Promise.resolve("read")), "read");
    // The root is renamed away while the call waits (on Deno, which reads by path, it then read elsewhere).
    const work = new Promise((resolve) => setTimeout(() => resolve(renameSync(tmp.path, moved)), 10));
    await assert.rejects(pacer.wait(work), { message: ROOT_MOVED_MESSAGE });
  } finally {
    renameSync(moved, tmp.path);
    tmp.cleanup();
  }
});
