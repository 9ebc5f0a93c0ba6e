/**
 * The one seeded PRNG of the suite, the stress campaigns and the benchmark's
 * corpora: mulberry32, so the same seed gives the same data on every machine
 * and runtime, and a failure replays from its seed.
 *
 * @module
 */

/** mulberry32: a function that returns the next float in [0, 1) of the sequence `seed` starts. */
export function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    let t = (state = (state + 0x6d2b79f5) >>> 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Seeded choices over mulberry32. */
export class Rng {
  /** A float in [0, 1). */
  readonly next: () => number;

  constructor(seed: number) {
    this.next = mulberry32(seed);
  }

  /** An integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  /** An integer in [lo, hi]. */
  range(lo: number, hi: number): number {
    return lo + this.int(hi - lo + 1);
  }

  /** One element. */
  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)];
  }

  /** True with probability `p`. */
  chance(p: number): boolean {
    return this.next() < p;
  }
}
