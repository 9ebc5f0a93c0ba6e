/**
 * The Node.js port: `node:fs`, with `O_NOFOLLOW | O_NONBLOCK` on every open for content (`descriptor.ts`).
 *
 * @module
 */
import * as fs from "node:fs";
import { isUtf8 } from "node:buffer";
import type { DirEntry, FsPort } from "./fs_port.ts";
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

/** The `FsPort` for Node.js; `unsupported` where `node:fs` lacks the no-follow open (Windows). */
export const nodePort: FsPort = {
  ...descriptorPort(fsErrorOf, (path) => infoOf(fs.lstatSync(path, { bigint: true })), () => nodePort),
  inputTurn: "immediates",
  realPath: (path) => attempt(fsErrorOf, () => fs.realpathSync(path)),
  readDir: (path) => attempt(fsErrorOf, () => readDir(path)),
  rename: (from, to) => attempt(fsErrorOf, () => fs.renameSync(from, to)),
  remove: (path) => attempt(fsErrorOf, () => fs.unlinkSync(path)),
};
