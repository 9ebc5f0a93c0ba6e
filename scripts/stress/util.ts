/**
 * What every campaign shares: the tally of iterations and failures, the
 * seed of each campaign, temp directories, refusals as outcomes, and a helper
 * process that swaps files for links while the server works. The seeded
 * random source, `sha256` and `traverse` are the test suite's, re-exported.
 *
 * @module
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { CallFailed } from "../../tests/_client.ts";
import { sha256 } from "../../tests/_sha256.ts";
import { type Peer, type Runtime, stderrProblem, type Target } from "./peer.ts";

export { traverse } from "../../tests/_client.ts";
export { Rng } from "../../tests/_rng.ts";
export { sha256 } from "../../tests/_sha256.ts";

/** How big a campaign runs: `short` for the test suite, `long` for `deno task stress`. */
export type Scale = "short" | "long";

/** What a campaign is given. */
export interface CampaignOptions {
  readonly target: Target;
  readonly seed: number;
  readonly scale: Scale;
  /** Progress lines (the script prints them; the test suite drops them). */
  readonly log?: (line: string) => void;
}

/** What a campaign reports. */
export interface CampaignResult {
  readonly campaign: string;
  readonly runtime: Runtime;
  readonly seed: number;
  readonly iterations: number;
  readonly failures: number;
  /** The first failure messages, then figures worth reading. */
  readonly notes: readonly string[];
  /** Error texts checked for host paths, stack frames and errno codes. */
  readonly errorTexts: number;
  /** Error texts that broke that rule (also counted in `failures`). */
  readonly hygieneFailures: number;
}

/** A campaign: a name and a bounded run. */
export interface Campaign {
  readonly name: string;
  run(options: CampaignOptions): Promise<CampaignResult>;
}

/** Counts iterations and failures, keeping the first messages. */
export class Tally {
  iterations = 0;
  failures = 0;
  errorTexts = 0;
  hygieneFailures = 0;
  readonly notes: string[] = [];
  readonly #figures: string[] = [];

  constructor(readonly campaign: string, readonly options: CampaignOptions) {}

  /** Records a failure. */
  fail(message: string): void {
    this.failures++;
    if (this.notes.length < 12) this.notes.push(message);
  }

  /** Records a failure unless `ok`; returns `ok`. */
  check(ok: boolean, message: () => string): boolean {
    if (!ok) this.fail(message());
    return ok;
  }

  /** Records a figure worth reporting (not a failure). */
  figure(text: string): void {
    this.#figures.push(text);
  }

  /** Checks that a peer still answers, then that closing its stdin makes it exit 0. */
  async checkCleanExit(peer: Peer): Promise<void> {
    this.check(await peer.answers(), () => "the server stopped answering");
    this.check((await peer.close()) === 0, () => "the server did not exit 0 after stdin closed");
  }

  /** Takes over what a finished peer saw: bad stdout lines, leaky error texts, a crash on stderr. */
  absorb(peer: Peer): void {
    for (const p of peer.protocolProblems) this.fail(`stdout: ${p}`);
    for (const p of peer.hygieneProblems) this.fail(`error hygiene: ${p}`);
    this.hygieneFailures += peer.hygieneProblems.length;
    this.errorTexts += peer.errorTexts;
    const crash = stderrProblem(peer.stderr);
    if (crash !== null) this.fail(`${crash}: ${peer.stderr.slice(0, 400)}`);
  }

  /** The result. */
  result(): CampaignResult {
    return {
      campaign: this.campaign,
      runtime: this.options.target.runtime,
      seed: this.options.seed,
      iterations: this.iterations,
      failures: this.failures,
      notes: [...this.notes, ...this.#figures],
      errorTexts: this.errorTexts,
      hygieneFailures: this.hygieneFailures,
    };
  }
}

/** A seed derived from the run's seed and a campaign name, so one campaign replays alone. */
export function deriveSeed(seed: number, name: string): number {
  return parseInt(sha256(`${seed}:${name}`).slice(0, 8), 16) & 0x7fffffff;
}

/** A fresh temp directory and its removal. */
export function tempDir(prefix: string): { path: string; remove(): void } {
  const path = mkdtempSync(join(tmpdir(), `ptc-fs-mcp-stress-${prefix}-`));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

/** Waits `ms` milliseconds. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * What `work` resolves to, or the text of the refusal it failed with: a
 * campaign counts refusals (`traverse(...)` refused on a page) as outcomes.
 */
export async function orRefusal<T>(work: Promise<T>): Promise<T | { error: string }> {
  try {
    return await work;
  } catch (error) {
    if (error instanceof CallFailed) return { error: error.text };
    throw error;
  }
}

/** One swap the helper process repeats: a path alternates between its real object and a link. */
export type Swap =
  | { kind: "file"; path: string; link: string; content: string; stage: string }
  | { kind: "dir"; path: string; link: string; hold: string };

/**
 * Starts a process that repeats every swap `cycles` times, pausing up to
 * `pauseMs` between steps, and resolves with the cycles it completed. It
 * runs on the host runtime (`node -e` or `deno eval`), apart from both the
 * server and this client, so the swaps truly race the server's calls.
 */
export function startSwapper(
  swaps: readonly Swap[],
  cycles: number,
  pauseMs: number,
  seed: number,
): { done: Promise<{ cycles: number; errors: number }>; stop(): void } {
  const config = JSON.stringify({ swaps, cycles, pauseMs, seed });
  const code = `Promise.all([import("node:fs"), import("node:process")]).then(([fs, p]) => {
  const c = ${config};
  const process = p.default;
  const sab = new Int32Array(new SharedArrayBuffer(4));
  let s = c.seed >>> 0;
  const rand = () => { s = (s * 1103515245 + 12345) >>> 0; return s / 4294967296; };
  const pause = () => { const ms = rand() * c.pauseMs; if (ms >= 0.05) Atomics.wait(sab, 0, 0, ms); };
  let errors = 0;
  const step = (fn) => { try { fn(); } catch { errors++; } };
  let n = 0;
  for (; n < c.cycles; n++) {
    for (const w of c.swaps) {
      if (w.kind === "file") {
        step(() => fs.symlinkSync(w.link, w.stage + ".l"));
        step(() => fs.renameSync(w.stage + ".l", w.path));
        pause();
        step(() => fs.writeFileSync(w.stage + ".r", w.content));
        step(() => fs.renameSync(w.stage + ".r", w.path));
      } else {
        step(() => fs.renameSync(w.path, w.hold));
        step(() => fs.symlinkSync(w.link, w.path));
        pause();
        step(() => fs.unlinkSync(w.path));
        step(() => fs.renameSync(w.hold, w.path));
      }
      pause();
    }
  }
  process.stdout.write(JSON.stringify({ cycles: n, errors }));
});`;
  const deno = "Deno" in globalThis;
  const child = spawn(process.execPath, deno ? ["eval", code] : ["-e", code], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  child.stdout!.setEncoding("utf8").on("data", (d: string) => (out += d));
  child.stderr!.setEncoding("utf8").on("data", (d: string) => (err += d));
  const done = new Promise<{ cycles: number; errors: number }>((resolve, reject) => {
    child.on("exit", () => {
      try {
        resolve(JSON.parse(out));
      } catch {
        reject(new Error(`the swapper failed: ${err.slice(0, 500)}`));
      }
    });
  });
  return { done, stop: () => child.kill("SIGKILL") };
}
