/**
 * `read_text_file` of a 64 MiB UTF-8 file from the first page to the last,
 * at default limits, against `cat` and against two floors replaying the
 * very pages the server returned from memory: a bare SDK `McpServer` (the
 * SDK's per-call path) and a raw JSON-RPC line server (no SDK). Server and
 * floors are interleaved, so the ratio to the floor is from the same minutes.
 * A third replay first makes, for each call, the system calls a warm
 * server made for it (`bare_server.mjs syscalls`): the floor of a read that
 * checks what this server checks.
 * The memory floor is a third bare `McpServer`, interleaved too, that reads
 * each page's bytes from the file at the server's offsets and holds none
 * between calls: its peak RSS over idle is what the SDK alone costs.
 *
 * @module
 */
import { type Context, ms, type Outcome } from "../context.ts";
import { readCorpus } from "../corpus.ts";
import { interleave, measureFrom, peakRatio, peakRow, perRuntime, pick, startMeasured } from "../measure.ts";
import { both, BOTH_RUNTIMES, DENO_OVER_NODE, REFERENCE, type Row } from "../report.ts";
import type { RpcClient } from "../rpc.ts";
import type { BareMode } from "../runtimes.ts";
import { recordSyscalls } from "../syscalls.ts";
import { baseline, type Item, readFile, traverse } from "../traversals.ts";

/**
 * A runtime's figures: the read and its floors over `cat`, the read over the SDK floor, peak over idle RSS
 * of the server and of the memory floor.
 */
interface ReadFigures {
  cat: number;
  sdk: number;
  raw: number;
  floor: number;
  syscalls: number;
  rss: number;
  floorRss: number;
}

/** The memory floor's index: each page's items as `[offset, length]` in the file, by the cursor that asked. */
function extentsOf(pages: Item[]): string {
  const utf8 = new TextEncoder();
  return pages.map((page, i) => {
    const extent = {
      cursor: i === 0 ? null : pages[i - 1].next_cursor,
      items: page.items.map((item: { byte_offset: number; text: string }) => [
        item.byte_offset,
        utf8.encode(item.text).length,
      ]),
      next_cursor: page.next_cursor,
      content_hash: page.content_hash,
    };
    return JSON.stringify(extent) + "\n";
  }).join("");
}

/** Rows: the read and its floors against `cat`, the read against the SDK floor, and peak RSS over idle. */
export function read(ctx: Context): Promise<Outcome> {
  return readRows(ctx, false);
}

/** The rows of `read` (default limits) or `read_1m` (`--max-result-bytes 1048576`). */
export async function readRows(ctx: Context, oneMiB: boolean): Promise<Outcome> {
  const root = await readCorpus(ctx.sizes.readBytes);
  const t = await readFile(ctx, root, "big.txt");
  const label = oneMiB ? "1 MiB results" : "default";
  const notes: string[] = [];
  const maxResultBytes = oneMiB ? 1_048_576 : undefined; // --max-result-bytes, for the server and the recording
  const opsFile = await Deno.makeTempFile({ prefix: "ptc-fs-mcp-bench-ops-", suffix: ".jsonl" });
  const recording = recordSyscalls(root, opsFile, (caller) => t.run(caller), {
    warm: true,
    limits: { maxResultBytes },
  });
  const runs = await recording.then(() =>
    perRuntime(ctx, async (rt) => {
      const measured = await startMeasured(
        rt,
        root,
        oneMiB ? ["--max-result-bytes", `${maxResultBytes}`] : [],
      );
      const pagesFile = await Deno.makeTempFile({ prefix: "ptc-fs-mcp-bench-pages-", suffix: ".jsonl" });
      const extentsFile = await Deno.makeTempFile({ prefix: "ptc-fs-mcp-bench-extents-", suffix: ".jsonl" });
      const floors = new Map<BareMode, RpcClient>();
      let memoryFloor: { client: RpcClient; idleKiB: number } | undefined;
      let calls = 0;
      let pageItems = 0;
      try {
        const server = async () => {
          // The first (untimed) run records the pages the floors replay.
          const pages: Item[] | undefined = calls === 0 ? [] : undefined;
          const r = await t.run(measured.client, pages);
          if (pages) {
            pageItems = pages.reduce((sum, page) => sum + page.items.length, 0);
            await Deno.writeTextFile(pagesFile, pages.map((p) => JSON.stringify(p) + "\n").join(""));
            await Deno.writeTextFile(extentsFile, extentsOf(pages));
          }
          calls = r.calls;
          return r.ms;
        };
        const floor = (mode: BareMode) => async () => {
          let client = floors.get(mode);
          if (!client) {
            client = mode === "syscalls" ? rt.bare(mode, opsFile, root) : rt.bare(mode, pagesFile);
            floors.set(mode, client);
            await client.discover();
          }
          const t0 = performance.now();
          const result = await traverse(client, "read_text_file", { path: "big.txt" });
          const time = performance.now() - t0;
          const answered = result.pages.length;
          ctx.check(answered === calls, `the ${mode} replay answered ${answered} calls, not ${calls}`);
          return time;
        };
        const extents = async () => {
          if (!memoryFloor) {
            const client = rt.bare("extents", extentsFile, `${root}/big.txt`);
            memoryFloor = { client, idleKiB: NaN }; // closed below even if it never answers
            memoryFloor = await measureFrom(client);
          }
          const t0 = performance.now();
          const result = await traverse(memoryFloor.client, "read_text_file", { path: "big.txt" });
          const time = performance.now() - t0;
          ctx.check(result.pages.length === calls, `the memory floor answered ${result.pages.length} calls`);
          ctx.check(
            result.items.length === pageItems,
            `the memory floor gave ${result.items.length} items, not ${pageItems}`,
          );
          return time;
        };
        const r = await interleave(ctx.reps, [
          () => baseline(t),
          server,
          floor("mcp"),
          floor("raw"),
          extents,
          floor("syscalls"),
        ]);
        const rss = await peakRatio(rt, measured, `read_text_file (${label})`);
        const floorRss = await peakRatio(rt, memoryFloor!, `read_text_file (${label}), its memory floor`);
        const [cat, ours, sdk, raw, fromFile, syscalls] = r.medians;
        notes.push(
          `${rt.name} read (${label}): ${calls} calls; the server takes ${(ours / sdk).toFixed(2)}× the ` +
            `McpServer floor, which takes ${(sdk / raw).toFixed(2)}× the raw floor; the memory floor takes ` +
            `${(fromFile / sdk).toFixed(2)}× the McpServer floor, the system-call floor ` +
            `${(syscalls / sdk).toFixed(2)}×` +
            (ctx.verbose
              ? ` (server ${ms(ours)}, McpServer ${ms(sdk)}, raw ${ms(raw)}, cat ${ms(cat)})`
              : ""),
          rss.note,
          floorRss.note,
        );
        const figures: ReadFigures = {
          cat: ours / cat,
          sdk: sdk / cat,
          raw: raw / cat,
          floor: ours / sdk,
          syscalls: syscalls / sdk,
          rss: rss.ratio,
          floorRss: floorRss.ratio,
        };
        return figures;
      } finally {
        await measured.client.close();
        for (const client of floors.values()) await client.close();
        await memoryFloor?.client.close();
        await Deno.remove(pagesFile).catch(() => {});
        await Deno.remove(extentsFile).catch(() => {});
      }
    })
  ).finally(() => Deno.remove(opsFile).catch(() => {}));
  const file = `${ctx.sizes.readBytes / 1024 / 1024} MiB UTF-8 file`;
  const limits = oneMiB ? "--max-result-bytes 1048576" : "default limits";
  const row = (what: string, baselineText: string, key: keyof ReadFigures, target = REFERENCE): Row => ({
    section: "read",
    what,
    baseline: baselineText,
    unit: "×",
    values: pick(runs, key),
    target,
  });
  // A floor: what the server does at least, on each runtime (a page written, a system call made).
  const floor = (what: string, baselineText: string, key: keyof ReadFigures): Row => ({
    ...row(what, baselineText, key),
    floorOn: BOTH_RUNTIMES,
  });
  return {
    rows: [
      row(`read_text_file full traversal of a ${file}, ${limits}`, t.baselineText, "cat", {
        denoOverNode: DENO_OVER_NODE,
      }),
      floor(
        "the same traversal against a bare SDK McpServer replaying its pages (floor)",
        t.baselineText,
        "sdk",
      ),
      floor(
        "the same traversal against a raw JSON-RPC line server replaying them, no SDK (floor)",
        t.baselineText,
        "raw",
      ),
      row(
        `${file} read at ${limits} vs the bare-SDK replay floor`,
        "the McpServer replay above, interleaved",
        "floor",
        oneMiB ? { denoOverNode: DENO_OVER_NODE } : both(1.1),
      ),
      floor(
        "the same replay, each call first making the system calls the server made for it (floor)",
        "the McpServer replay above, interleaved",
        "syscalls",
      ),
      peakRow(`read_text_file (${label})`, pick(runs, "rss"), { node: 1.5, denoOverNode: DENO_OVER_NODE }),
      peakRow(
        "the same reads on a bare SDK McpServer reading each page's bytes from the file (memory floor)",
        pick(runs, "floorRss"),
        REFERENCE,
      ),
    ],
    notes,
  };
}
