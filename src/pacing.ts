/**
 * Long work in one call pauses for input: once it ran `YIELD_EVERY_MS` since its last pause, it gives the
 * event loop a turn in which the loop reads input, so a cancellation or another request is taken in soon
 * however slow the work is.
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
 * A turn of the event loop in which it reads input (a cancellation), as the port's runtime needs it.
 *
 * - Node polls for input once per loop, before it runs immediates: the first immediate may still run in the
 *   loop that started the call, with no poll since, the second runs after one. Two cost about 0.2 ms.
 * - Deno reads input only in a turn that waits: immediates, timers already due, or operations another thread
 *   answers at once never let a cancellation in. A fresh timer waits about 2 ms there.
 */
export function inputTurnFor(fs: Pick<FsPort, "inputTurn">): () => Promise<void> {
  const immediate = () => new Promise<void>((resolve) => setImmediate(resolve));
  if (fs.inputTurn === "immediates") {
    return async () => {
      await immediate();
      await immediate();
    };
  }
  return async () => {
    await new Promise((resolve) => setTimeout(resolve, 0));
    await immediate();
  };
}

/** One call's pacing, across everything it does: its listing, then its scan. */
export class Pacer {
  readonly #root: Root;
  readonly #turn: () => Promise<void>;
  readonly #signal: AbortSignal;
  #pausedAt = performance.now(); // when the call last paused (or started)
  #pauses = 0;

  constructor(root: Root, signal: AbortSignal) {
    this.#root = root;
    this.#turn = inputTurnFor(root.fs);
    this.#signal = signal;
  }

  /**
   * Pauses once the call ran `YIELD_EVERY_MS`, then checks the root pin (it may have moved meanwhile: nothing
   * more is read under a root path that names another directory); throws `cancelled` once the client
   * cancelled the call. Returns whether it paused: anything the call checked before may have changed since.
   */
  async checkpoint(): Promise<boolean> {
    let paused = false;
    if (performance.now() - this.#pausedAt >= YIELD_EVERY_MS) {
      await this.#turn();
      this.#pausedAt = performance.now();
      this.#pauses++;
      paused = true;
      if (!this.#signal.aborted) checkRoot(this.#root);
    }
    if (this.#signal.aborted) throw new ToolError(CANCELLED_MESSAGE);
    return paused;
  }

  /**
   * Waits for `work` another call is doing, or throws `cancelled` as soon as this call is. Counts as a pause:
   * other calls ran meanwhile.
   */
  async wait<T>(work: Promise<T>): Promise<T> {
    const signal = this.#signal;
    let stop = () => {};
    const cancelled = new Promise<never>((_, reject) => {
      stop = () => reject(new ToolError(CANCELLED_MESSAGE));
      if (signal.aborted) stop();
      else signal.addEventListener("abort", stop, { once: true });
    });
    try {
      return await Promise.race([work, cancelled]);
    } finally {
      signal.removeEventListener("abort", stop);
      this.#pauses++;
      this.#pausedAt = performance.now();
    }
  }

  /** How many times the call paused so far. */
  get pauses(): number {
    return this.#pauses;
  }
}
