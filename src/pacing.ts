/**
 * Long work pauses for input: once the event loop ran `YIELD_EVERY_MS` since its last input turn, the call
 * running gives it a turn in which it reads input, so a cancellation or another request is taken in soon
 * however slow the work is, and however many long calls run at once.
 *
 * @module
 */
import { setImmediate } from "node:timers";
import { CANCELLED_MESSAGE, ToolError } from "./errors.ts";
import type { FsPort } from "./ports/fs_port.ts";
import { checkRoot } from "./confine.ts";
import type { Root } from "./root.ts";

/** Work between two pauses: by time, not bytes, so a cancellation is honoured soon however slow the work. */
export const YIELD_EVERY_MS = 10;

/**
 * Paths listed or hashed between two checkpoints of a call: the scope of a root of 1,000,000 files, listed and
 * hashed at once, held input for 0.4–0.8 s.
 */
export const PATHS_PER_CHECKPOINT = 4_096;

/** Of a call's pauses, every this many is patient (`inputTurnFor`); the others are quick (`quickTurnFor`). */
export const PATIENT_PAUSE_EVERY = 4;

/**
 * A turn of the event loop in which it reads input (a cancellation), as the port's runtime needs it.
 *
 * - Node polls for input once per loop, before it runs immediates: the first immediate may still run in the
 *   loop that started the call, with no poll since, the second runs after one. Two cost about 0.2 ms.
 * - Deno reads input only in a turn that waits: immediates, timers already due, or operations another thread
 *   answers at once never let a cancellation in. A fresh timer waits about 2 ms there, long enough for its
 *   thread that reads stdin to run even on a loaded machine.
 */
export function inputTurnFor(fs: Pick<FsPort, "inputTurn">): () => Promise<void> {
  if (fs.inputTurn === "immediates") return twice(immediate);
  return async () => {
    await new Promise((resolve) => setTimeout(resolve, 0));
    await immediate();
  };
}

/**
 * A turn that takes in the input the runtime has already read, without waiting: Node's two immediates; on
 * Deno two messages through fresh channels, each an event its loop polls input for (0.04 ms for both). On a
 * loaded machine Deno's thread that reads stdin may not have run by then, so `Pacer` makes every
 * `PATIENT_PAUSE_EVERY`th pause an `inputTurnFor`: a cancellation still gets in within four pauses.
 */
export function quickTurnFor(fs: Pick<FsPort, "inputTurn">): () => Promise<void> {
  return fs.inputTurn === "immediates" ? twice(immediate) : twice(message);
}

function twice(turn: () => Promise<void>): () => Promise<void> {
  return async () => {
    await turn();
    await turn();
  };
}

function immediate(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * Waits for a message posted to a fresh channel, then closes both its ports: on Deno a port left open keeps
 * about 5 KB of native memory that no collection frees.
 */
function message(): Promise<void> {
  return new Promise((resolve) => {
    const { port1, port2 } = new MessageChannel();
    port1.onmessage = () => {
      port1.close();
      port2.close();
      resolve();
    };
    port2.postMessage(null);
  });
}

/** The turns a call's pauses take: mostly `quick`, every `PATIENT_PAUSE_EVERY`th `patient`. */
export interface PauseTurns {
  readonly quick: () => Promise<void>;
  readonly patient: () => Promise<void>;
}

/** A call waiting for the input turn: how to wake it, and whether it used the slice before it paused. */
interface Waiter {
  readonly wake: (first: boolean) => void;
  readonly worked: boolean;
}

/**
 * The event loop's slices of long work, shared by every call in the process: the loop pauses for input once it
 * ran `YIELD_EVERY_MS` since it last did, whichever calls ran. Each call counting its own time instead, three
 * long calls ran 10 ms each between two reads of input (a request waited 30 ms). Calls that pause while a turn
 * is under way wait for that turn, and wake those that did not get to work first: they take slices in turn.
 */
const slices = {
  startedAt: performance.now(), // when the loop last came back from an input turn
  waiting: null as Waiter[] | null, // the calls waiting for the turn under way; null: none is
  turns: 0, // turns taken, so every `PATIENT_PAUSE_EVERY`th is patient
};

/**
 * Ends the turn under way: a new slice starts, and its waiters wake, one that did not work in the last slice
 * first. The others wake a turn of the loop later, once the first had the slice: woken together, each would
 * look at the slice before any of them worked, and all would run.
 */
function endTurn(): void {
  const woken = slices.waiting ?? [];
  slices.waiting = null;
  slices.startedAt = performance.now();
  const [first, ...others] = [...woken.filter((w) => !w.worked), ...woken.filter((w) => w.worked)];
  first?.wake(true);
  if (others.length > 0) setImmediate(() => others.forEach((w) => w.wake(false)));
}

/** One call's pacing, across everything it does: its listing, then its scan. */
export class Pacer {
  readonly #root: Root;
  readonly #turns: PauseTurns;
  readonly #signal: AbortSignal;
  readonly #startedAt = performance.now(); // a call that starts was just read in: a slice starts with it
  #worked = true; // whether the call ran in the current slice (it did since it started)
  #pauses = 0;

  constructor(
    root: Root,
    signal: AbortSignal,
    turns: PauseTurns = { quick: quickTurnFor(root.fs), patient: inputTurnFor(root.fs) },
  ) {
    this.#root = root;
    this.#turns = turns;
    this.#signal = signal;
  }

  /**
   * Pauses once the loop ran `YIELD_EVERY_MS` since its last input turn (or since this call started), then
   * checks the root pin (it may have moved meanwhile: nothing more is read under a root path that names
   * another directory); throws `cancelled` once the client cancelled the call. A call woken after another
   * finds the slice taken and waits for the next turn. After a pause (`pauses` counts them), anything the call
   * checked before may have changed.
   */
  async checkpoint(): Promise<void> {
    let slice = Math.max(slices.startedAt, this.#startedAt);
    if (performance.now() - slice < YIELD_EVERY_MS) this.#worked = true;
    while (performance.now() - slice >= YIELD_EVERY_MS && !this.#signal.aborted) {
      this.#worked = await this.#pause();
      this.#pauses++;
      if (!this.#signal.aborted) checkRoot(this.#root);
      slice = slices.startedAt;
    }
    if (this.#signal.aborted) throw new ToolError(CANCELLED_MESSAGE);
  }

  /** Waits for the input turn under way, or starts one; resolves whether this call woke first. */
  #pause(): Promise<boolean> {
    const worked = this.#worked;
    return new Promise((wake) => {
      if (slices.waiting !== null) {
        slices.waiting.push({ wake, worked });
        return;
      }
      slices.waiting = [{ wake, worked }];
      const { quick, patient } = this.#turns;
      // Ended however the turn ends (a turn that throws, too): a turn left under way would hold every call.
      void Promise.resolve(++slices.turns % PATIENT_PAUSE_EVERY === 0 ? patient : quick)
        .then((turn) => turn())
        .then(endTurn, endTurn);
    });
  }

  /**
   * Waits for `work` another call is doing, or throws `cancelled` as soon as this call is. Counts as a pause:
   * other calls ran meanwhile, so the root pin is checked after it, as after any pause (on Deno, which reads
   * by path, a call that waited for another's read went on to read under a root swapped meanwhile).
   */
  async wait<T>(work: Promise<T>): Promise<T> {
    const signal = this.#signal;
    let stop = () => {};
    const cancelled = new Promise<never>((_, reject) => {
      stop = () => reject(new ToolError(CANCELLED_MESSAGE));
      if (signal.aborted) stop();
      else signal.addEventListener("abort", stop, { once: true });
    });
    let done: T;
    try {
      done = await Promise.race([work, cancelled]);
    } finally {
      signal.removeEventListener("abort", stop);
      this.#pauses++;
    }
    checkRoot(this.#root);
    return done;
  }

  /** How many times the call paused so far. */
  get pauses(): number {
    return this.#pauses;
  }
}
