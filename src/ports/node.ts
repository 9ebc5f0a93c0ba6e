/**
 * The Node.js port: `node:fs`, with `O_NOFOLLOW | O_NONBLOCK` on every open for content (`descriptor.ts`).
 *
 * @module
 */
import * as fs from "node:fs";
import { isUtf8 } from "node:buffer";
import { DIR_BATCH, type DirEntry, type FsPort } from "./fs_port.ts";
import { attempt, descriptorPort, fsErrorOf, infoOf, kindOf } from "./descriptor.ts";

const hasReplacement = (entries: readonly DirEntry[]) => entries.some((e) => e.name.includes("\uFFFD"));

/** Names are read as strings (fast); only if one holds U+FFFD, as bytes, leaving out any not UTF-8. */
function readDir(path: string): DirEntry[] {
  const entries = fs.readdirSync(path, { withFileTypes: true })
    .map((d): DirEntry => ({ name: d.name, kind: kindOf(d) }));
  return hasReplacement(entries) ? readDirExact(path) : entries;
}

function readDirExact(path: string): DirEntry[] {
  const exact: DirEntry[] = [];
  for (const d of fs.readdirSync(path, { withFileTypes: true, encoding: "buffer" })) {
    if (isUtf8(d.name)) exact.push({ name: d.name.toString("utf8"), kind: kindOf(d) });
  }
  return exact;
}

/** Appends up to `DIR_BATCH` entries of `dir` to `entries`; false once it is read to the end. */
function readBatch(dir: fs.Dir, entries: DirEntry[]): boolean {
  for (let n = 0; n < DIR_BATCH; n++) {
    const d = dir.readSync();
    if (d === null) return false;
    entries.push({ name: d.name, kind: kindOf(d) });
  }
  return true;
}

/** An open directory is read a batch at a time (no sort, unlike `readdirSync`: faster on a big one). */
async function readDirPaced(path: string, pause: () => Promise<unknown>): Promise<DirEntry[]> {
  const dir = attempt(fsErrorOf, () => fs.opendirSync(path, { bufferSize: DIR_BATCH }));
  const entries: DirEntry[] = [];
  try {
    while (attempt(fsErrorOf, () => readBatch(dir, entries))) await pause();
  } finally {
    dir.closeSync();
  }
  // Rare: a name that is not UTF-8 (read as U+FFFD) needs the bytes, read in one go.
  return hasReplacement(entries) ? attempt(fsErrorOf, () => readDirExact(path)) : entries;
}

/** The `FsPort` for Node.js; `unsupported` where `node:fs` lacks the no-follow open (Windows). */
export const nodePort: FsPort = {
  ...descriptorPort(fsErrorOf, (path) => infoOf(fs.lstatSync(path, { bigint: true })), () => nodePort),
  inputTurn: "immediates",
  realPath: (path) => attempt(fsErrorOf, () => fs.realpathSync(path)),
  readDir: (path) => attempt(fsErrorOf, () => readDir(path)),
  readDirPaced,
  rename: (from, to) => attempt(fsErrorOf, () => fs.renameSync(from, to)),
  remove: (path) => attempt(fsErrorOf, () => fs.unlinkSync(path)),
};
