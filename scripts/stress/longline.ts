/**
 * Campaign `longline`: a file that is one single line (200 MiB; 64 MiB in
 * the short version), searched by three concurrent `search_text` calls. The
 * process must stay within its idle RSS + 64 MiB (SPEC section 7), each call
 * must report the line whole (its text cut to 1,024 bytes), and a request
 * sent meanwhile must be answered before the searches end. Then searches are
 * cancelled at random moments inside the line: nothing more may be sent for
 * them, and the figures say how soon the next request was answered.
 *
 * RSS is read from `/proc/<pid>/status` (Linux): idle before the calls, the
 * peak as the largest of a 10 ms poll and the kernel's high-water mark
 * (`VmHWM`, reset through `clear_refs` before the calls).
 *
 * @module
 */
import { spawn, spawnSync } from "node:child_process";
import { closeSync, mkdirSync, openSync, writeFileSync, writeSync } from "node:fs";
import process from "node:process";
import { Buffer } from "node:buffer";
import { join } from "node:path";
import { META, Peer } from "./peer.ts";
import { type Campaign, type CampaignOptions, Rng, sleep, Tally, tempDir } from "./util.ts";

const MiB = 1024 * 1024;

/** The bound SPEC section 7 sets on top of the idle RSS, for three such calls. */
const BOUND = 64 * MiB;

/** The reported text: the line's first 1,024 bytes (ASCII here). */
const HEAD = "head of the one long line ".padEnd(1_024 + 40, "-");

/** Writes `size` bytes of one line: `HEAD`, filler, and `needle` at `at`. No newline. */
function writeLongLine(path: string, size: number, needle: string, at: number): void {
  const filler = Buffer.alloc(8 * MiB, "abcdefghijklmnopqrstuvwxyz0123456789 ");
  const fd = openSync(path, "w");
  try {
    for (let written = 0; written < size;) {
      const piece = Buffer.from(filler.subarray(0, Math.min(filler.length, size - written)));
      if (written === 0) piece.write(HEAD);
      if (at >= written && at < written + piece.length) piece.write(needle, at - written);
      writeSync(fd, piece);
      written += piece.length;
    }
  } finally {
    closeSync(fd);
  }
}

/**
 * One field of `/proc/<pid>/status`, in bytes, or `null` when it cannot be
 * read. Through `cat`: Deno lets a script read `/proc` only with every
 * permission.
 */
function status(pid: number, field: "VmRSS" | "VmHWM"): number | null {
  const out = spawnSync("cat", [`/proc/${pid}/status`], { encoding: "utf8" });
  const match = new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(out.stdout ?? "");
  return match ? Number(match[1]) * 1024 : null;
}

/**
 * Polls a process's RSS every 10 ms from a helper process (on the host
 * runtime, as the swapper runs) until stopped; resolves with the largest.
 */
function pollRss(pid: number): { stop(): Promise<number> } {
  const code = `import("node:fs").then((fs) => {
  let peak = 0;
  const sample = () => {
    try {
      const m = /^VmRSS:\\s+(\\d+) kB/m.exec(fs.readFileSync("/proc/${pid}/status", "utf8"));
      if (m) peak = Math.max(peak, Number(m[1]) * 1024);
    } catch { /* gone */ }
  };
  const timer = setInterval(sample, 10);
  process.stdin.on("data", () => {});
  process.stdin.on("end", () => { clearInterval(timer); sample(); process.stdout.write(String(peak)); });
});`;
  const deno = "Deno" in globalThis;
  const child = spawn(process.execPath, deno ? ["eval", code] : ["-e", code], {
    stdio: ["pipe", "pipe", "ignore"],
  });
  let out = "";
  child.stdout!.setEncoding("utf8").on("data", (d: string) => (out += d));
  const done = new Promise<number>((resolve) => child.on("exit", () => resolve(Number(out) || 0)));
  return {
    stop() {
      child.stdin!.end();
      return done;
    },
  };
}

function mib(bytes: number): string {
  return `${(bytes / MiB).toFixed(1)} MiB`;
}

async function run(options: CampaignOptions) {
  const tally = new Tally("longline", options);
  const long = options.scale === "long";
  const rng = new Rng(options.seed);
  const size = (long ? 200 : 64) * MiB;
  const base = tempDir("longline");
  try {
    const root = join(base.path, "root");
    mkdirSync(root);
    // The needle sits near the end, across a window edge: a scan must read the whole line.
    const needle = "NEEDLE-longline";
    writeLongLine(join(root, "one-line.txt"), size, needle, size - 4 * MiB - 5);
    writeFileSync(join(root, "small.txt"), "a NEEDLE-longline in a small file\n");
    const peer = new Peer(options.target, root, ["--include", "**"], [base.path]);
    const pid = peer.child.pid!;
    const search = { name: "search_text", arguments: { query: needle, path: "one-line.txt" } };
    try {
      // Idle: after start-up and one small call, settled.
      const warm = await peer.call("search_text", { query: needle, path: "small.txt" });
      tally.check(
        warm.result?.structuredContent?.items?.length === 1,
        () => `small search: ${JSON.stringify(warm)}`,
      );
      await sleep(300);
      const idle = status(pid, "VmRSS");
      if (idle === null) {
        tally.figure("no /proc/<pid>/status here: memory not measured");
      }

      // Three concurrent calls on the one line, and a request answered meanwhile.
      spawnSync("sh", ["-c", `echo 5 > /proc/${pid}/clear_refs`]); // resets VmHWM, where permitted
      const poll = pollRss(pid);
      await sleep(100); // the poller started
      const started = Date.now();
      let ends = 0;
      const calls = [0, 1, 2].map(() =>
        peer.request("tools/call", search, { timeoutMs: 600_000 }).then((reply) => {
          ends = Date.now();
          return reply;
        })
      );
      await sleep(50);
      const pinged = Date.now();
      const ping = await peer.answers(600_000);
      const pingMs = Date.now() - pinged;
      const replies = await Promise.all(calls);
      const peak = Math.max(idle ?? 0, await poll.stop(), status(pid, "VmHWM") ?? 0);
      const callMs = ends - started;
      tally.iterations += 3;
      for (const reply of replies) {
        const items = reply.result?.structuredContent?.items;
        tally.check(
          Array.isArray(items) && items.length === 1 && items[0].line === 1 &&
            items[0].text === HEAD.slice(0, 1_024),
          () => `the line was not reported whole: ${JSON.stringify(reply).slice(0, 300)}`,
        );
      }
      tally.check(ping, () => "no answer to a request sent during the searches");
      if (idle !== null) {
        tally.check(
          peak - idle <= BOUND,
          () => `peak RSS ${mib(peak)} is more than idle ${mib(idle)} + 64 MiB`,
        );
        tally.figure(
          `${mib(size)} single line, 3 concurrent calls: idle RSS ${mib(idle)}, peak ${mib(peak)}, ` +
            `peak - idle ${mib(peak - idle)} (bound 64 MiB); the calls took ${callMs} ms, ` +
            `a tools/list sent meanwhile ${pingMs} ms`,
        );
      }

      // Cancellation inside the line: the next request is answered soon, the cancelled one never.
      // A cancellation is sent within the first tenth of an uncancelled call's time, so that it
      // arrives while the call still scans (one that arrives after the answer is no test).
      let single = Infinity;
      for (let i = 0; i < 2; i++) {
        const t0 = Date.now();
        await peer.request("tools/call", search, { timeoutMs: 600_000 });
        single = Math.min(single, Date.now() - t0);
      }
      const rounds = long ? 20 : 4;
      const latencies: number[] = [];
      for (let i = 0; i < rounds; i++) {
        const id = `longline-${i}`;
        let answered = false;
        const call = peer.send(
          { jsonrpc: "2.0", id, method: "tools/call", params: { ...search, _meta: META } },
          600_000,
        ).then(() => (answered = true), () => {});
        await sleep(rng.range(1, Math.max(2, Math.floor(single / 10))));
        if (answered) continue;
        tally.iterations++;
        peer.cancel(id);
        const t0 = performance.now();
        const ok = await peer.answers(60_000);
        latencies.push(performance.now() - t0);
        tally.check(ok, () => `no answer after cancelling ${id}`);
        await call;
      }
      await sleep(callMs + 200);
      for (const late of peer.answeredAfterCancel) {
        tally.fail(`${late.id} was answered after its cancellation`);
      }
      latencies.sort((a, b) => a - b);
      tally.figure(
        `one call alone ${single} ms; cancelled inside the line ${latencies.length} times: the next request was answered after ` +
          `median ${latencies[latencies.length >> 1]?.toFixed(1) ?? "-"} ms, max ${
            latencies.at(-1)?.toFixed(1) ?? "-"
          } ms`,
      );
      await tally.checkCleanExit(peer);
    } finally {
      await peer.kill();
      tally.absorb(peer);
    }
  } finally {
    base.remove();
  }
  return tally.result();
}

/** The `longline` campaign. */
export const longLineCampaign: Campaign = { name: "longline", run };
