/**
 * How the scenarios time and weigh: interleaved repetitions against a
 * baseline, and a server's peak RSS against its idle RSS.
 *
 * @module
 */
import type { Context } from "./context.ts";
import {
  BOTH_RUNTIMES,
  DENO_OVER_NODE,
  REFERENCE,
  type Row,
  type RuntimeName,
  type Target,
} from "./report.ts";
import { memoryOf, resetPeak, type RpcClient } from "./rpc.ts";
import type { Runtime } from "./runtimes.ts";
import { median } from "./stats.ts";
import { recordSyscalls } from "./syscalls.ts";
import { baseline, type Traversal } from "./traversals.ts";

/**
 * Runs every arm once untimed, then `reps` rounds of every arm in turn, so
 * that load from other processes falls on the baseline and the server alike.
 * Returns each arm's median and samples, in the order of `arms`.
 */
export async function interleave(
  reps: number,
  arms: (() => Promise<number>)[],
): Promise<{ medians: number[]; samples: number[][] }> {
  for (const arm of arms) await arm();
  const samples: number[][] = arms.map(() => []);
  for (let i = 0; i < reps; i++) {
    for (let a = 0; a < arms.length; a++) samples[a].push(await arms[a]());
  }
  return { medians: samples.map(median), samples };
}

/** `interleave` over named arms: each arm's median by its name. Arms left undefined are skipped. */
export async function interleaveNamed<K extends string>(
  reps: number,
  arms: Record<K, (() => Promise<number>) | undefined>,
): Promise<Partial<Record<K, number>>> {
  const present = (Object.entries(arms) as [K, (() => Promise<number>) | undefined][])
    .filter((arm): arm is [K, () => Promise<number>] => arm[1] !== undefined);
  const { medians } = await interleave(reps, present.map(([, arm]) => arm));
  return Object.fromEntries(present.map(([name], i) => [name, medians[i]])) as Partial<Record<K, number>>;
}

/** Times `run` and returns its wall time in ms. */
export async function timed(run: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  await run();
  return performance.now() - t0;
}

/** A server that answered discover, with its RSS measured then and its peak reset there. */
export async function startMeasured(
  rt: Runtime,
  root: string,
  extra: string[] = [],
): Promise<{ client: RpcClient; idleKiB: number }> {
  return await measureFrom(rt.server(root, extra));
}

/** A started server (the real one or a floor) once it answered discover, its idle RSS taken and peak reset. */
export async function measureFrom(client: RpcClient): Promise<{ client: RpcClient; idleKiB: number }> {
  await client.discover();
  await new Promise((r) => setTimeout(r, 200)); // let start-up garbage settle
  const idleKiB = (await memoryOf(client.pid)).rssKiB;
  await resetPeak(client.pid);
  return { client, idleKiB };
}

/** The peak RSS of a server started by `startMeasured`, as a ratio to its idle RSS, with a note. */
export async function peakRatio(
  rt: Runtime,
  measured: { client: RpcClient; idleKiB: number },
  label: string,
): Promise<{ ratio: number; note: string }> {
  const peakKiB = (await memoryOf(measured.client.pid)).hwmKiB;
  const mib = (kiB: number) => `${(kiB / 1024).toFixed(1)} MiB`;
  return {
    ratio: peakKiB / measured.idleKiB,
    note: `${rt.name} RSS ${label}: idle ${mib(measured.idleKiB)}, peak ${mib(peakKiB)}`,
  };
}

/** Medians of a traversal and of its baseline, in ms, and the traversal's number of calls. */
export interface Timing {
  server: number;
  base: number;
  calls: number;
}

/** Timed arms, by name; an arm left undefined is skipped. */
type Arms<K extends string> = Partial<Record<K, () => Promise<number>>>;

/**
 * Runs the baseline and every runtime's arms once untimed, then `reps` rounds. A round takes the runtimes in
 * turn (in the opposite order every other round), each runtime's arms after one run of the baseline, so load
 * from other processes falls on both runtimes and the baseline alike. Every runtime's figures are then ratios
 * to the same baseline: Deno/Node compares the two servers, not two samples of the baseline's noise (run
 * alone, 3 runs of `find | grep` 80 ms before Deno's and 110 ms before Node's once turned Deno's 206 ms
 * against Node's 222 into a Deno/Node of 1.29). Returns the median of every baseline run and each arm's median.
 */
export async function interleaveRuntimes<K extends string>(
  reps: number,
  base: () => Promise<number>,
  arms: Partial<Record<RuntimeName, Arms<K>>>,
): Promise<{ base: number; medians: Partial<Record<RuntimeName, Partial<Record<K, number>>>> }> {
  const blocks = (Object.entries(arms) as [RuntimeName, Arms<K>][]).map(([name, named]) => ({
    name,
    arms: (Object.entries(named) as [K, (() => Promise<number>) | undefined][])
      .filter((arm): arm is [K, () => Promise<number>] => arm[1] !== undefined),
  }));
  await base();
  for (const block of blocks) for (const [, arm] of block.arms) await arm();
  const baseSamples: number[] = [];
  const samples = blocks.map((block) => block.arms.map((): number[] => []));
  for (let round = 0; round < reps; round++) {
    const order = blocks.map((_, i) => i);
    if (round % 2 === 1) order.reverse();
    for (const b of order) {
      baseSamples.push(await base());
      for (let a = 0; a < blocks[b].arms.length; a++) samples[b][a].push(await blocks[b].arms[a][1]());
    }
  }
  const medians: Partial<Record<RuntimeName, Partial<Record<K, number>>>> = {};
  blocks.forEach((block, b) => {
    medians[block.name] = Object.fromEntries(
      block.arms.map(([name], a) => [name, median(samples[b][a])]),
    ) as Partial<Record<K, number>>;
  });
  return { base: median(baseSamples), medians };
}

/** What `warm` measures on one runtime. */
export interface WarmTiming extends Timing {
  rss: { ratio: number; note: string };
  floor?: number;
  syscalls?: number;
  work?: number;
  unchecked?: number;
  bareLoop?: number;
  syscallsRss?: { ratio: number; note: string };
}

/** What `warm` measures beside the server and its floors. */
interface WarmOptions {
  /** The same on a Deno server run with `--allow-all` (`unchecked`). */
  unchecked?: boolean;
  /** Timed rounds (default `ctx.reps`). */
  reps?: number;
  /** A further timed arm on each runtime, run in the same rounds (`bareLoop`): a bare loop in its own process. */
  bareLoop?: (rt: Runtime) => () => Promise<number>;
}

/** A runtime's servers for `warm`, started and warm-able, with the arms that time them. */
interface WarmSetup {
  rt: Runtime;
  arms: Arms<"server" | "floor" | "syscalls" | "work" | "unchecked" | "bareLoop">;
  calls: () => number;
  measured: { client: RpcClient; idleKiB: number };
  syscallsMeasured?: { client: RpcClient; idleKiB: number };
  close(): Promise<void>;
}

/**
 * Times `traversal` on one warm server of each runtime of the context (warm from the untimed first run),
 * interleaved with its baseline and with one another (`interleaveRuntimes`); measures each server's peak RSS
 * over all runs too. With `floors` (a traversal of `list_directory`, `search_files` or `search_text`), also
 * interleaved: the same on a warm bare SDK `McpServer` answering the calls recorded from the real server
 * (`floor`), and with `"syscalls"`, the same again first making the system calls an in-process server made
 * for each call of a warm run (`syscalls`); with `"work"`, those two and the same again doing the least work
 * the contract asks of each call too (`work`, `bare_server.mjs work`). With `unchecked`, on a runtime that has
 * one (Deno), the same server run so that it checks no path against a permission grant, warm too
 * (`unchecked`): what those checks cost. With `"syscalls"` or `"work"`, the peak RSS of the `syscalls` server
 * is measured as the real one's is (`syscallsRss`): what the runtime holds for those calls alone. `reps`
 * and `bareLoop`: see `WarmOptions`.
 */
export async function warm(
  ctx: Context,
  traversal: Traversal,
  label: string,
  floors: "none" | "calls" | "syscalls" | "work" = "none",
  also: WarmOptions = {},
): Promise<Partial<Record<RuntimeName, WarmTiming>>> {
  const setups: WarmSetup[] = [];
  try {
    for (const rt of ctx.runtimes) {
      console.error(`bench:   on ${rt.name} ...`);
      setups.push(await warmSetup(rt, traversal, floors, also));
    }
    console.error("bench:   timing, the runtimes interleaved ...");
    const { base, medians } = await interleaveRuntimes(
      also.reps ?? ctx.reps,
      () => baseline(traversal),
      Object.fromEntries(setups.map((s) => [s.rt.name, s.arms])),
    );
    const out: Partial<Record<RuntimeName, WarmTiming>> = {};
    for (const s of setups) {
      const { server, ...rest } = medians[s.rt.name]!;
      out[s.rt.name] = {
        base,
        server: server!,
        ...rest,
        calls: s.calls(),
        rss: await peakRatio(s.rt, s.measured, label),
        syscallsRss: s.syscallsMeasured &&
          await peakRatio(s.rt, s.syscallsMeasured, `${label}, its system-call floor`),
      };
    }
    return out;
  } finally {
    for (const s of setups) await s.close();
  }
}

/** Records what `warm`'s floors replay, then starts `rt`'s servers and has each answer discover. */
async function warmSetup(
  rt: Runtime,
  traversal: Traversal,
  floors: "none" | "calls" | "syscalls" | "work",
  also: WarmOptions,
): Promise<WarmSetup> {
  const temp = (kind: string) => Deno.makeTempFile({ prefix: `ptc-fs-mcp-bench-${kind}-`, suffix: ".jsonl" });
  const files: string[] = [];
  const clients: RpcClient[] = [];
  const close = async () => {
    for (const client of clients) await client.close();
    for (const file of files) await Deno.remove(file);
  };
  try {
    const callsFile = floors === "none" ? undefined : await temp("calls");
    if (callsFile) files.push(callsFile);
    const opsFile = floors === "syscalls" || floors === "work" ? await temp("ops") : undefined;
    if (opsFile) files.push(opsFile);
    if (callsFile) await recordCalls(rt, traversal, callsFile);
    if (opsFile) {
      await recordSyscalls(traversal.root, opsFile, (caller) => traversal.run(caller), { warm: true });
    }
    const started = (client: RpcClient | undefined) => {
      if (client) clients.push(client);
      return client;
    };
    const measured = await measureFrom(started(rt.server(traversal.root))!);
    const servers = {
      floor: started(callsFile ? rt.bare("calls", callsFile) : undefined),
      syscalls: started(opsFile ? rt.bare("syscalls", opsFile, traversal.root) : undefined),
      work: started(floors === "work" ? rt.bare("work", opsFile, traversal.root) : undefined),
      unchecked: started(also.unchecked ? rt.uncheckedServer?.(traversal.root) : undefined),
    };
    for (const client of [servers.floor, servers.work, servers.unchecked]) await client?.discover();
    const syscallsMeasured = servers.syscalls && await measureFrom(servers.syscalls);
    let calls = 0;
    const on = (client: RpcClient | undefined) => client && (async () => (await traversal.run(client)).ms);
    return {
      rt,
      arms: {
        server: async () => {
          const run = await traversal.run(measured.client);
          calls = run.calls;
          return run.ms;
        },
        floor: on(servers.floor),
        syscalls: on(servers.syscalls),
        work: on(servers.work),
        unchecked: on(servers.unchecked),
        bareLoop: also.bareLoop?.(rt),
      },
      calls: () => calls,
      measured,
      syscallsMeasured,
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}

/** What `cold` measures on one runtime. */
export interface ColdTiming extends Timing {
  floor: number;
  syscalls: number;
  work?: number;
  unchecked?: number;
}

/**
 * Times `traversal` on a freshly started server each run, as a host that
 * spawns one server per job meets it: spawn, wait for discover, then time
 * the traversal from its first call, on each runtime of the context,
 * interleaved with the baseline and with one another (`interleaveRuntimes`).
 * Interleaved with it, the same on two fresh bare SDK `McpServer`s that
 * answer every call with the page the real server gave: `floor`
 * (`bare_server.mjs calls`, recorded first) and `syscalls`, which first makes
 * the filesystem operations a fresh server made for that call
 * (`bare_server.mjs syscalls`, recorded in process); with `leastWork`, a
 * third, `work`, which then also does the least work the contract asks of
 * the call (`bare_server.mjs work`). With `unchecked`, on a runtime that has
 * one (Deno), the same fresh server run so that it checks no path against a
 * permission grant (`unchecked`). `reps`: the timed rounds (default `ctx.reps`).
 */
export async function cold(
  ctx: Context,
  traversal: Traversal,
  also: { leastWork?: boolean; unchecked?: boolean; reps?: number } = {},
): Promise<Partial<Record<RuntimeName, ColdTiming>>> {
  const files: string[] = [];
  try {
    const arms: Partial<Record<RuntimeName, Arms<"server" | "floor" | "syscalls" | "work" | "unchecked">>> =
      {};
    const calls: Partial<Record<RuntimeName, number>> = {};
    const fresh = (rt: Runtime, start: () => RpcClient) => async () => {
      const client = start();
      try {
        await client.discover();
        const run = await traversal.run(client);
        calls[rt.name] = run.calls;
        return run.ms;
      } finally {
        await client.close();
      }
    };
    for (const rt of ctx.runtimes) {
      console.error(`bench:   on ${rt.name} ...`);
      const callsFile = await Deno.makeTempFile({ prefix: "ptc-fs-mcp-bench-calls-", suffix: ".jsonl" });
      files.push(callsFile);
      const opsFile = await Deno.makeTempFile({ prefix: "ptc-fs-mcp-bench-ops-", suffix: ".jsonl" });
      files.push(opsFile);
      await recordCalls(rt, traversal, callsFile);
      await recordSyscalls(traversal.root, opsFile, (caller) => traversal.run(caller));
      const unchecked = also.unchecked ? rt.uncheckedServer : undefined;
      arms[rt.name] = {
        server: fresh(rt, () => rt.server(traversal.root)),
        floor: fresh(rt, () => rt.bare("calls", callsFile)),
        syscalls: fresh(rt, () => rt.bare("syscalls", opsFile, traversal.root)),
        work: also.leastWork ? fresh(rt, () => rt.bare("work", opsFile, traversal.root)) : undefined,
        unchecked: unchecked && fresh(rt, () => unchecked(traversal.root)),
      };
    }
    console.error("bench:   timing, the runtimes interleaved ...");
    const { base, medians } = await interleaveRuntimes(
      also.reps ?? ctx.reps,
      () => baseline(traversal),
      arms,
    );
    const out: Partial<Record<RuntimeName, ColdTiming>> = {};
    for (const [name, m] of Object.entries(medians) as [RuntimeName, (typeof medians)["node"]][]) {
      const { server, floor, syscalls, ...rest } = m!;
      out[name] = { base, server: server!, floor: floor!, syscalls: syscalls!, ...rest, calls: calls[name]! };
    }
    return out;
  } finally {
    for (const file of files) await Deno.remove(file);
  }
}

/** Runs `traversal` once on a fresh server, writing each call's tool, arguments and page to `file`. */
async function recordCalls(rt: Runtime, traversal: Traversal, file: string): Promise<void> {
  const client = rt.server(traversal.root);
  const lines: string[] = [];
  // The traversal pages through `call`; everything else is the client's own.
  const recording: RpcClient = Object.create(client);
  recording.call = async (tool, args = {}, timeoutMs) => {
    const response = await client.call(tool, args, timeoutMs);
    lines.push(JSON.stringify({ tool, args, page: response.result?.structuredContent }) + "\n");
    return response;
  };
  try {
    await client.discover();
    await traversal.run(recording);
  } finally {
    await client.close();
  }
  await Deno.writeTextFile(file, lines.join(""));
}

/**
 * The search rows' memory target: the performance issue set peak RSS ≤ 1.3× idle on Node, with Deno reported
 * beside it; the second pass holds Deno to Node (Deno/Node ≤ 1.25), not to the same bar.
 */
export const SEARCH_PEAK_TARGET: Target = { node: 1.3, denoOverNode: DENO_OVER_NODE };

/** A row of the peak-RSS section. */
export function peakRow(
  label: string,
  values: Partial<Record<RuntimeName, number>>,
  target: Target = SEARCH_PEAK_TARGET,
): Row {
  return {
    section: "memory",
    what: `peak RSS during ${label}`,
    baseline: "RSS after server/discover",
    unit: "×",
    values,
    target,
  };
}

/**
 * The reference row under a traversal's row: a bare SDK server answering the same recorded calls; with
 * `syscalls`, first making the filesystem operations the server made for each; with `syscalls and search`,
 * also searching the bytes they read and yielding every 10 ms of that work, as the scan must (`search_text`);
 * with `syscalls and least work`, also doing the least the contract asks of each call with what they return
 * (`bare_server.mjs work`).
 */
export function floorRow(
  section: Row["section"],
  baselineText: string,
  values: Partial<Record<RuntimeName, number>>,
  kind: "calls" | "syscalls" | "syscalls and search" | "syscalls and least work" = "calls",
): Row {
  const server = section === "cold" ? "a fresh" : "a warm";
  const making = "that server first making the server's recorded system calls for each";
  return {
    section,
    what: kind === "calls"
      ? `the same against ${server} bare SDK McpServer answering the recorded calls (floor)`
      : kind === "syscalls"
      ? `the same, ${making} (floor)`
      : kind === "syscalls and least work"
      ? `the same, ${making} and doing in plain loops the least work the contract asks of the call with ` +
        `what they return: identities compared, the items found in order, hashed and signed (floor)`
      : `the same, ${making}, searching the bytes they read with the port's byte search and yielding ` +
        `to input every 10 ms, as the contract requires (floor)`,
    baseline: baselineText,
    unit: "×",
    values,
    target: REFERENCE,
    floorOn: BOTH_RUNTIMES,
  };
}

/**
 * The reference row under a traversal's row: the same on a Deno server run with `--allow-all`, under which
 * Deno checks no path against a permission grant, so the difference is what those checks cost (`Runtime.
 * uncheckedServer`). Deno only; not a floor: the README's command scopes the grant to the root.
 */
export function uncheckedRow(
  section: Row["section"],
  baselineText: string,
  values: Partial<Record<RuntimeName, number>>,
): Row {
  const server = section === "cold" ? "a fresh" : "a warm";
  return {
    section,
    what:
      `the same on ${server} Deno server run with \`--allow-all\`, which checks no path against a grant: ` +
      "what Deno's permission checks cost (reference)",
    baseline: baselineText,
    unit: "×",
    values,
    target: REFERENCE,
  };
}

/** Runs `body` once per runtime of the context and collects what it returns, by runtime name. */
export async function perRuntime<T>(
  ctx: Context,
  body: (rt: Runtime) => Promise<T>,
): Promise<Partial<Record<RuntimeName, T>>> {
  const out: Partial<Record<RuntimeName, T>> = {};
  for (const rt of ctx.runtimes) {
    console.error(`bench:   on ${rt.name} ...`);
    out[rt.name] = await body(rt);
  }
  return out;
}

/** `body` of every runtime's result, by runtime name, in the same order. */
export function mapRuntimes<T, U>(
  results: Partial<Record<RuntimeName, T>>,
  body: (name: RuntimeName, result: T) => U,
): Partial<Record<RuntimeName, U>> {
  const out: Partial<Record<RuntimeName, U>> = {};
  for (const name of Object.keys(results) as RuntimeName[]) out[name] = body(name, results[name]!);
  return out;
}

/** One field of every runtime's result. */
export function pick<T, K extends keyof T>(
  results: Partial<Record<RuntimeName, T>>,
  key: K,
): Partial<Record<RuntimeName, T[K]>> {
  const out: Partial<Record<RuntimeName, T[K]>> = {};
  for (const name of Object.keys(results) as RuntimeName[]) out[name] = results[name]![key];
  return out;
}

/**
 * One line of growth figures: per runtime, the server's median time at each
 * size, then `extra` of each timing in parentheses, followed by `unit`.
 */
export function growthFigure(
  title: string,
  runs: Partial<Record<RuntimeName, Timing[]>>,
  extra: (t: Timing, i: number) => string,
  unit: string,
): string {
  const time = (n: number) => n.toFixed(n < 10 ? 1 : 0);
  const parts = (Object.keys(runs) as RuntimeName[]).map((name) => {
    const timings = runs[name]!;
    return `${name === "node" ? "Node" : "Deno"} ${timings.map((t) => time(t.server)).join(" / ")} ms ` +
      `(${timings.map(extra).join(" / ")}${unit})`;
  });
  return `${title}: ${parts.join("; ")}`;
}
