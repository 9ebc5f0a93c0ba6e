/**
 * The runtime floor of `search_text`: a bare loop that finds every file
 * under ROOT, then opens, fstats, reads and searches each for NEEDLE and
 * closes it, with the same `node:fs` calls and the same byte search as the
 * runtime's port (Node: `Buffer#indexOf`; Deno: `wasmSearch` from
 * `src/search/find_bytes.ts`) and none of the server's
 * checks, pages or protocol. It runs the loop RUNS times in one process and
 * prints the times in ms and the match count as one JSON line, so the first
 * run is the cold one and the rest are warm.
 *
 * Plain JavaScript, so it runs as it is on Node and on Deno
 * (`--allow-read=ROOT`), where it imports the port's search from `src/`.
 *
 * Usage: scan_floor.mjs ROOT NEEDLE RUNS
 *
 * @module
 */
import { Buffer } from "node:buffer";
import { closeSync, constants, fstatSync, openSync, readdirSync, readSync } from "node:fs";
import process from "node:process";

const [root, query, runs] = process.argv.slice(2);
const needle = Buffer.from(query, "utf8");
const WINDOW = 1024 * 1024; // the server's search window
const window = Buffer.alloc(WINDOW);

// The port's search, from the server's own module on Deno (Node's is `Buffer#indexOf`, native code).
const search = typeof Deno === "undefined"
  ? (bytes) => (from) => bytes.indexOf(needle, from)
  : (await import("../../src/search/find_bytes.ts")).wasmSearch(needle);

function filesUnder(dir, out) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) filesUnder(path, out);
    else if (entry.isFile()) out.push(path);
  }
  return out;
}

function scan() {
  let matches = 0;
  for (const path of filesUnder(root, [])) {
    const fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    try {
      const size = Number(fstatSync(fd, { bigint: true }).size);
      // As the server reads: up to the size the fstat gave, no read past it to find the end.
      for (let position = 0, n; position < size; position += n) {
        n = readSync(fd, window, 0, Math.min(WINDOW, size - position), position);
        if (n === 0) break;
        const bytes = window.subarray(0, n); // files here are smaller than a window: no match spans two
        const find = search(bytes);
        for (let at = find(0); at >= 0; at = find(at + needle.length)) matches++;
      }
    } finally {
      closeSync(fd);
    }
  }
  return matches;
}

const times = [];
let matches = 0;
for (let run = 0; run < Number(runs); run++) {
  const t0 = performance.now();
  matches = scan();
  times.push(performance.now() - t0);
}
process.stdout.write(JSON.stringify({ times, matches }) + "\n");
