/**
 * What every scenario gets (the runtimes, the corpus sizes, the repetitions
 * and a correctness check) and what it gives back (rows, notes, figures).
 * A scenario keeps no state between calls and shares none with another: the
 * driver collects what it returns.
 *
 * @module
 */
import type { Sizes } from "./corpus.ts";
import type { Row } from "./report.ts";
import type { Runtime } from "./runtimes.ts";

/** A scenario's view of the run. */
export interface Context {
  /** The runtimes to measure, Node first. */
  readonly runtimes: readonly Runtime[];
  readonly sizes: Sizes;
  /** Timed repetitions per measurement (after one untimed warm-up). */
  readonly reps: number;
  /**
   * Timed repetitions of a judged traversal, warm or cold (`TRAVERSAL_REPS_FACTOR` × `reps`): both runtimes
   * run in one loop there, a round takes 1–15 s, and a median of 3 moved with the machine by tens of percent.
   */
  readonly traversalReps: number;
  /** `--quick`: small corpora and fewer rounds. */
  readonly quick: boolean;
  /** `--verbose`: scenarios add their absolute times to the notes. */
  readonly verbose: boolean;
  /** Fails the run when `condition` is false: a fast wrong answer is a failure, not a figure. */
  check(condition: boolean, what: string): asserts condition;
  /** Fails the run unless `got` equals `want` item by item, naming the first difference. */
  sameList(got: readonly string[], want: readonly string[], what: string): void;
}

/** What a scenario returns. */
export interface Outcome {
  /** Rows of the table. */
  rows: Row[];
  /** Lines for the details list under the table (calls, matches, absolute times). */
  notes?: string[];
  /** Lines of figures printed under the table (how cost grows). */
  figures?: string[];
}

/** A scenario: measures on every runtime of the context and returns its rows. */
export type Scenario = (ctx: Context) => Promise<Outcome>;

/** The error a failed correctness check throws. */
export class VerificationError extends Error {}

/** How many times `reps` a judged traversal runs (`Context.traversalReps`). */
export const TRAVERSAL_REPS_FACTOR = 3;

/** The context of one run. */
export function makeContext(options: Omit<Context, "check" | "sameList" | "traversalReps">): Context {
  return {
    ...options,
    traversalReps: TRAVERSAL_REPS_FACTOR * options.reps,
    check(condition: boolean, what: string): asserts condition {
      if (!condition) throw new VerificationError(`verification failed: ${what}`);
    },
    sameList(got, want, what) {
      if (got.length !== want.length) {
        throw new VerificationError(
          `verification failed: ${what}: ${got.length} items, expected ${want.length}`,
        );
      }
      for (let i = 0; i < want.length; i++) {
        if (got[i] !== want[i]) {
          throw new VerificationError(
            `verification failed: ${what}: item ${i} is ${got[i]}, expected ${want[i]}`,
          );
        }
      }
    },
  };
}

/** Bytewise order for ASCII paths (the corpora use ASCII names). */
export const byString = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** `0.31 ms`, `42 ms`. */
export const ms = (n: number): string => `${n.toFixed(n < 10 ? 2 : 0)} ms`;
