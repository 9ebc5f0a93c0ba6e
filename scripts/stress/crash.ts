/**
 * Campaign `crash`: bursts of writes to one target, the server SIGKILLed at
 * a random moment during each burst. After every kill the target must hold
 * one complete version (the old one or one of the burst), never a torn one;
 * temp files the kill left behind must never be served by the next server,
 * and writes must keep working beside them.
 *
 * @module
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { isTempName } from "../../src/temp_names.ts";
import { Peer } from "./peer.ts";
import {
  type Campaign,
  type CampaignOptions,
  orRefusal,
  Rng,
  sha256,
  sleep,
  Tally,
  tempDir,
  traverse,
} from "./util.ts";

const TARGET = "crash.txt";

function content(seq: number, rng: Rng): string {
  return `version ${seq} ${String.fromCharCode(97 + (seq % 26)).repeat(rng.range(0, 64_000))} end`;
}

async function run(options: CampaignOptions) {
  const tally = new Tally("crash", options);
  const long = options.scale === "long";
  const totalWrites = long ? 200 : 20;
  const rng = new Rng(options.seed);
  const base = tempDir("crash");
  let kills = 0;
  let leftovers = 0;
  let landed = 0;
  try {
    const root = join(base.path, "root");
    mkdirSync(root);
    const initial = content(0, rng);
    writeFileSync(join(root, TARGET), initial);
    let current = sha256(initial);
    let seq = 0;
    while (seq < totalWrites) {
      const peer = new Peer(options.target, root, ["--include", "**"], [base.path]);
      try {
        // A fresh server ignores the temp files an earlier kill left behind.
        const temps = readdirSync(root).filter(isTempName);
        const listing = await orRefusal(traverse(peer, "list_directory", {}));
        const found = await orRefusal(traverse(peer, "search_files", { query: "ptc" }));
        const text = JSON.stringify([listing, found]);
        tally.check(
          !temps.some((t) => text.includes(t)),
          () => `a leftover temp file was served: ${text.slice(0, 300)}`,
        );
        for (const temp of temps.slice(0, 2)) {
          const read = await peer.call("read_text_file", { path: temp });
          tally.check(read.result?.isError === true, () => `a leftover temp file was read: ${temp}`);
        }
        const reading = await orRefusal(traverse(peer, "read_text_file", { path: TARGET }));
        if (!("error" in reading)) {
          const got = (reading.items as { text: string }[]).map((i) => i.text).join("");
          tally.check(sha256(got) === current, () => "the server read something else than the disk holds");
        } else tally.fail(`read after restart: ${reading.error}`);

        const burst = Math.min(rng.range(1, 8), totalWrites - seq);
        const sent = new Set<string>([current]);
        const pending: Promise<unknown>[] = [];
        for (let i = 0; i < burst; i++) {
          const next = content(++seq, rng);
          sent.add(sha256(next));
          pending.push(
            peer.call("write_text_file", { path: TARGET, content: next }).then(
              (r) => r.result?.isError !== true && landed++,
              () => {},
            ),
          );
          tally.iterations++;
        }
        await sleep(rng.next() * burst * 4);
        await peer.kill();
        kills++;
        await Promise.all(pending);
        const disk = readFileSync(join(root, TARGET), "utf8");
        current = sha256(disk);
        tally.check(
          sent.has(current),
          () => `after a kill the target is torn (${disk.length} bytes: ${disk.slice(0, 30)}…)`,
        );
        leftovers += readdirSync(root).filter(isTempName).length - temps.length;
      } finally {
        await peer.kill();
        tally.absorb(peer);
      }
    }
    // A last server: writes still work beside every leftover, which stays unserved.
    const peer = new Peer(options.target, root, ["--include", "**"], [base.path]);
    try {
      const reply = await peer.call("write_text_file", { path: TARGET, content: "final" });
      tally.check(
        reply.result?.isError !== true,
        () => `the write after the crashes failed: ${JSON.stringify(reply)}`,
      );
      const found = await orRefusal(traverse(peer, "search_text", { query: "version" }));
      tally.check(
        !("error" in found) && found.items.length === 0,
        () => `a leftover temp file was searched: ${JSON.stringify(found).slice(0, 300)}`,
      );
      tally.check((await peer.close()) === 0, () => "the server did not exit 0 after stdin closed");
    } finally {
      await peer.kill();
      tally.absorb(peer);
    }
    tally.figure(
      `${kills} kills during ${seq} writes (${landed} confirmed before the kill); temp files left: ${leftovers}`,
    );
  } finally {
    base.remove();
  }
  return tally.result();
}

/** The `crash` campaign. */
export const crashCampaign: Campaign = { name: "crash", run };
