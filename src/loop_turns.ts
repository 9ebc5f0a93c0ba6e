/**
 * Turns of the event loop taken in the middle of long synchronous work, so that input is read meanwhile
 * (a cancellation, the next request), on Node and on Deno alike.
 *
 * @module
 */
import { setImmediate } from "node:timers";

/**
 * The turns of one piece of work. A turn waits for a timer, then for an immediate: a timer alone can resume
 * the work before input is polled, and on Deno work that yields to immediates alone can starve input. The
 * timer is armed when the work starts or resumes, so by the next turn, milliseconds of work later, it has
 * expired and costs no delay: a turn takes about 0.15 ms, where a timer set at the turn waits 1 ms on Node
 * and 2.5 ms on Deno.
 */
export class LoopTurns {
  #timer: ReturnType<typeof setTimeout> | undefined;
  #expired: Promise<void> = Promise.resolve();

  constructor() {
    this.#arm();
  }

  /** Lets the event loop poll for input and run what it read, then resumes. */
  async take(): Promise<void> {
    await this.#expired;
    await new Promise((resolve) => setImmediate(resolve));
    this.#arm();
  }

  /** Clears the armed timer, once the work is done and no turn is being taken. */
  dispose(): void {
    clearTimeout(this.#timer);
  }

  #arm(): void {
    this.#expired = new Promise((resolve) => this.#timer = setTimeout(resolve, 0));
  }
}
