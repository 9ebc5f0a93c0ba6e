/**
 * File identity: kind, size, mtime, ctime, inode and device. Cursors bind it (one file for `read_text_file`,
 * every file up to the position for `search_text`); a cached listing lives while its directory's holds.
 *
 * @module
 */
import { type FileInfo, FsError } from "./ports/fs_port.ts";
import type { Root } from "./root.ts";
import { Digest } from "./hashing.ts";

/** The identity of a served file now, `null` when it is gone or cannot be looked at. */
export function identityOf(root: Root, rel: string): FileInfo | null {
  try {
    return root.lstat(rel);
  } catch (error) {
    if (error instanceof FsError) return null;
    throw error;
  }
}

/** Whether two stats show the same identity. */
export function sameIdentity(a: FileInfo | null, b: FileInfo | null): boolean {
  if (a === null || b === null) return a === b;
  return a.kind === b.kind && a.ctimeNs === b.ctimeNs && sameContent(a, b);
}

/**
 * Whether the bytes behind an open descriptor are unchanged: identity without ctime, which also moves when
 * another file is renamed over the path.
 */
export function sameContent(a: FileInfo, b: FileInfo): boolean {
  return a.ino === b.ino && a.dev === b.dev && a.size === b.size && a.mtimeNs === b.mtimeNs;
}

const RECORD_BYTES = 48; // kind, size, mtime, ctime, inode, device: 8 bytes each
const KINDS: readonly FileInfo["kind"][] = ["file", "directory", "symlink", "other", "unknown"];

/**
 * The identities (or absence) of files `0` to `count - 1` as fixed-size records in one buffer (not a string
 * per file, for the garbage collector to trace), and digests over a prefix.
 */
export class IdentityRecords {
  #bytes: Uint8Array;
  #view: DataView;
  /** How many records are set. */
  count = 0;

  constructor(capacity = 1) {
    this.#bytes = new Uint8Array(Math.max(1, Math.min(capacity, 1_024)) * RECORD_BYTES);
    this.#view = new DataView(this.#bytes.buffer);
  }

  /** Records file `index`'s identity; `null`: absent. */
  set(index: number, info: FileInfo | null): void {
    const at = index * RECORD_BYTES;
    if (at + RECORD_BYTES > this.#bytes.length) {
      const bigger = new Uint8Array(Math.max(at + RECORD_BYTES, 2 * this.#bytes.length));
      bigger.set(this.#bytes);
      this.#bytes = bigger;
      this.#view = new DataView(bigger.buffer);
    }
    write(this.#view, at, info);
    this.count = Math.max(this.count, index + 1);
  }

  /** Whether file `index` was recorded with this identity. */
  same(index: number, info: FileInfo | null): boolean {
    if (index >= this.count) return false;
    write(SCRATCH_VIEW, 0, info);
    const at = index * RECORD_BYTES;
    for (let i = 0; i < RECORD_BYTES; i++) if (this.#bytes[at + i] !== SCRATCH[i]) return false;
    return true;
  }

  /** A hex digest of `prefix` (a digest itself) and the first `through` records. */
  digest(prefix: string, through: number): string {
    return new Digest().text(prefix).bytes(this.#bytes.subarray(0, through * RECORD_BYTES)).hex();
  }
}

const SCRATCH = new Uint8Array(RECORD_BYTES);
const SCRATCH_VIEW = new DataView(SCRATCH.buffer);

function write(view: DataView, at: number, info: FileInfo | null): void {
  for (let i = 0; i < RECORD_BYTES; i += 8) view.setFloat64(at + i, 0);
  if (info === null) return; // absent: kind 0
  view.setUint8(at, 1 + KINDS.indexOf(info.kind));
  view.setFloat64(at + 8, info.size);
  view.setBigInt64(at + 16, info.mtimeNs);
  view.setBigInt64(at + 24, info.ctimeNs);
  view.setBigUint64(at + 32, info.ino);
  view.setBigUint64(at + 40, info.dev);
}

/** The identity of one file as a hex digest (a `read_text_file` cursor's state). */
export function identityDigest(info: FileInfo): string {
  const records = new IdentityRecords();
  records.set(0, info);
  return records.digest("", 1);
}
