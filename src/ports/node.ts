/**
 * The Node.js port: `node:fs`, with `O_NOFOLLOW | O_NONBLOCK` on every open for content (`descriptor.ts`).
 *
 * @module
 */
import * as fs from "node:fs";
import { type Buffer, isUtf8 } from "node:buffer";
import { DIR_BATCH, type DirEntry, type FsPort } from "./fs_port.ts";
import { attempt, descriptorPort, fsErrorOf, infoOf, kindOf } from "./descriptor.ts";

/** Names are read as strings (fast); only if one holds U+FFFD, as bytes, leaving out any not UTF-8. */
function readDir(path: string): DirEntry[] {
  const entries = fs.readdirSync(path, { withFileTypes: true });
  if (!entries.some((d) => d.name.includes("\uFFFD"))) {
    return entries.map((d): DirEntry => ({ name: d.name, kind: kindOf(d) }));
  }
  const exact: DirEntry[] = [];
  for (const d of fs.readdirSync(path, { withFileTypes: true, encoding: "buffer" })) {
    if (isUtf8(d.name)) exact.push({ name: d.name.toString("utf8"), kind: kindOf(d) });
  }
  return exact;
}

/**
 * Appends up to `DIR_BATCH` entries of `dir` to `entries`, leaving out names not UTF-8; false once it is
 * read to the end. Names come as bytes: a directory read with pauses is never read again by path, where
 * another may be by then, to learn a name's bytes. (Deno's `node:fs` hands strings, decoded lossily.)
 */
function readBatch(dir: fs.Dir, entries: DirEntry[]): boolean {
  for (let n = 0; n < DIR_BATCH; n++) {
    const d = dir.readSync();
    if (d === null) return false;
    const raw = d.name as string | Buffer;
    if (typeof raw === "string") entries.push({ name: raw, kind: kindOf(d) });
    else if (isUtf8(raw)) entries.push({ name: raw.toString("utf8"), kind: kindOf(d) });
  }
  return true;
}

// Node honours `encoding: "buffer"` here (names as `Buffer`s), though @types/node 20 types `Dir` for strings.
const AS_BYTES = { bufferSize: DIR_BATCH, encoding: "buffer" as BufferEncoding };

/** An open directory is read a batch at a time (no sort, unlike `readdirSync`: faster on a big one). */
async function readDirPaced(path: string, pause: () => Promise<unknown>): Promise<DirEntry[]> {
  const dir = attempt(fsErrorOf, () => fs.opendirSync(path, AS_BYTES));
  const entries: DirEntry[] = [];
  try {
    while (attempt(fsErrorOf, () => readBatch(dir, entries))) await pause();
  } finally {
    dir.closeSync();
  }
  return entries;
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
