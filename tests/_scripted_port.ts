/**
 * A scripted `FsPort`: an in-memory tree whose answers follow a script, so
 * that a race the real filesystem shows only now and then (a file replaced
 * between the check and the open, a directory swapped for a link, the root
 * moved) happens at exactly one call, every run.
 *
 * The tree is keyed by paths relative to the root (`""` is the root). A link
 * in the middle of a path is followed, as the kernel follows it: `symlink`
 * turns a directory into a link to a directory holding the given files, so
 * a path through it reaches other files. A step armed with `before` or
 * `after` runs once, at the next call of that operation on that path,
 * before the call answers or after it did; a step that throws makes the
 * call fail. Made with `foldsCase`, it is a directory tree that folds case,
 * as ext4's `casefold` or the default APFS: a path reaches a name stored in
 * any spelling of it, and `readDir` gives each name as it is stored.
 *
 * @module
 */
import {
  type DirectoryHold,
  type DirEntry,
  type EntryKind,
  type FileHandle,
  type FileInfo,
  FsError,
  type FsErrorCode,
  type FsPort,
} from "../src/ports/fs_port.ts";

/** An operation of the port, as `calls` records it. */
export type Op =
  | "realPath"
  | "lstat"
  | "holdDirectory"
  | "readDir"
  | "openRead"
  | "createExclusive"
  | "rename"
  | "remove"
  | "read"; // through a descriptor, named by the path it was opened by

interface Node {
  kind: EntryKind;
  ino: bigint;
  dev: bigint;
  bytes: Uint8Array;
  /** The last change, as a tick count: a directory's moves when an entry changes, so caches see it. */
  changed: bigint;
}

interface Step {
  when: "before" | "after";
  op: Op;
  rel: string;
  run(): void;
}

const encoder = new TextEncoder();

/** The in-memory port. */
export class ScriptedPort implements FsPort {
  /** The root's absolute path on the fake. */
  static readonly ROOT = "/scripted-root";
  /** Every call, as `<op> <relative path>`, in order. */
  readonly calls: string[] = [];
  /** Descriptors open now (files and held directories). */
  openDescriptors = 0;
  readonly #nodes = new Map<string, Node>();
  readonly #steps: Step[] = [];
  readonly #foldsCase: boolean;
  #lastIno = 100n;
  #clock = 0n;

  /**
   * @param files Relative paths and their text; a path ending in `/` is an
   *   empty directory. Parent directories are made as needed.
   * @param options `foldsCase`: a path reaches a name stored in any spelling of it.
   */
  constructor(files: Record<string, string>, options: { foldsCase?: boolean } = {}) {
    this.#foldsCase = options.foldsCase ?? false;
    this.#nodes.set("", this.#node("directory"));
    this.#add(files, "");
  }

  // --- the script ---------------------------------------------------------------------------------

  /** Runs `step` once, at the next `op` on `rel`, before it answers (a throw fails the call). */
  before(op: Op, rel: string, step: () => void): this {
    this.#steps.push({ when: "before", op, rel, run: step });
    return this;
  }

  /** Runs `step` once, right after the next `op` on `rel` answered. */
  after(op: Op, rel: string, step: () => void): this {
    this.#steps.push({ when: "after", op, rel, run: step });
    return this;
  }

  /** How many calls of `op` on `rel` were made. */
  count(op: Op, rel: string): number {
    return this.calls.filter((c) => c === `${op} ${rel}`).length;
  }

  // --- changes to the tree, as another process makes them ----------------------------------------

  /** A new file at `rel` (a new inode), as an atomic write's rename leaves it. */
  write(rel: string, text: string): void {
    this.#set(rel, { ...this.#node("file"), bytes: encoder.encode(text) });
  }

  /**
   * The object at `rel` replaced by a copy with another identity: a new
   * inode, or, given `identity`, the old one with those fields changed.
   */
  recreate(rel: string, identity?: { ino?: bigint; dev?: bigint }): void {
    const old = this.#get(rel);
    const ino = identity === undefined ? ++this.#lastIno : identity.ino ?? old.ino;
    this.#set(rel, { ...old, ino, dev: identity?.dev ?? old.dev });
  }

  /** The directory at `rel` replaced by a link to a directory holding `files` (somewhere else). */
  symlink(rel: string, files: Record<string, string>): void {
    this.#get(rel);
    this.erase(rel);
    this.#set(rel, this.#node("symlink"));
    this.#add(files, rel);
  }

  /** Nothing at `rel` any more, nor below it. */
  erase(rel: string): void {
    for (const path of [...this.#nodes.keys()]) {
      if (path === rel || this.#isBelow(path, rel)) this.#nodes.delete(path);
    }
    this.#touchParent(rel);
  }

  // --- FsPort --------------------------------------------------------------------------------------

  realPath(path: string): string {
    return this.#call("realPath", path, (rel) => {
      if (this.#find(rel) === null) throw new FsError("not_found");
      return path;
    });
  }

  lstat(path: string): FileInfo | null {
    return this.#call("lstat", path, (rel) => {
      const node = this.#find(rel);
      return node === null ? null : infoOf(node);
    });
  }

  holdDirectory(path: string): DirectoryHold {
    return this.#call("holdDirectory", path, (rel) => {
      const node = this.#find(rel);
      if (node === null) throw new FsError("not_found");
      if (node.kind !== "directory") throw new FsError("not_directory");
      return this.#descriptor(node, rel);
    });
  }

  readDir(path: string): DirEntry[] {
    return this.#call("readDir", path, (rel) => {
      const node = this.#find(rel);
      if (node === null) throw new FsError("not_found");
      if (node.kind !== "directory" && node.kind !== "symlink") throw new FsError("not_directory");
      const prefix = rel === "" ? "" : `${rel}/`;
      return [...this.#nodes.entries()]
        .filter(([p]) => p !== "" && p.startsWith(prefix) && !p.slice(prefix.length).includes("/"))
        .map(([p, n]) => ({ name: p.slice(prefix.length), kind: n.kind }));
    });
  }

  /** `readDir`, in one batch: no pause. */
  readDirPaced(path: string): Promise<DirEntry[]> {
    return Promise.resolve(this.readDir(path));
  }

  openRead(path: string): FileHandle {
    return this.#call("openRead", path, (rel) => {
      const node = this.#find(rel);
      if (node === null) throw new FsError("not_found");
      if (node.kind === "symlink") throw new FsError("symlink");
      if (node.kind !== "file") throw new FsError("not_regular");
      return this.#descriptor(node, rel);
    });
  }

  createExclusive(path: string): FileHandle {
    return this.#call("createExclusive", path, (rel) => {
      if (this.#find(rel) !== null) throw new FsError("exists");
      const node = this.#node("file");
      this.#set(rel, node);
      return this.#descriptor(node, rel);
    });
  }

  rename(from: string, to: string): void {
    this.#call("rename", from, (rel) => {
      const node = this.#get(rel);
      this.erase(rel);
      this.#set(this.#relative(to), node);
    });
  }

  remove(path: string): void {
    this.#call("remove", path, (rel) => {
      if (this.#find(rel) === null) throw new FsError("not_found");
      this.erase(rel);
    });
  }

  // --- the machinery -------------------------------------------------------------------------------

  #call<T>(op: Op, path: string, answer: (rel: string) => T): T {
    const rel = this.#relative(path);
    this.calls.push(`${op} ${rel}`);
    this.#step("before", op, rel);
    const result = answer(rel);
    this.#step("after", op, rel);
    return result;
  }

  #step(when: Step["when"], op: Op, rel: string): void {
    const at = this.#steps.findIndex((s) => s.when === when && s.op === op && s.rel === rel);
    if (at >= 0) this.#steps.splice(at, 1)[0].run();
  }

  /** The node at `rel`, or `null` when it or a directory on the way is missing or not a directory. */
  #find(rel: string): Node | null {
    const segments = rel === "" ? [] : rel.split("/");
    for (let i = 0; i <= segments.length; i++) {
      const node = this.#at(segments.slice(0, i).join("/"));
      if (node === undefined) return null;
      if (i === segments.length) return node;
      if (node.kind !== "directory" && node.kind !== "symlink") return null; // a link on the way is followed
    }
    return null;
  }

  /** The node stored at `rel`; on a fake that folds case, at any spelling of it. */
  #at(rel: string): Node | undefined {
    const exact = this.#nodes.get(rel);
    if (exact !== undefined || !this.#foldsCase) return exact;
    const folded = rel.toLowerCase();
    for (const [path, node] of this.#nodes) if (path.toLowerCase() === folded) return node;
    return undefined;
  }

  #set(rel: string, node: Node): void {
    this.#nodes.set(rel, node);
    this.#touchParent(rel);
  }

  #touchParent(rel: string): void {
    const parent = this.#nodes.get(rel.includes("/") ? rel.slice(0, rel.lastIndexOf("/")) : "");
    if (rel !== "" && parent !== undefined) parent.changed = ++this.#clock;
  }

  #get(rel: string): Node {
    const node = this.#nodes.get(rel);
    if (node === undefined) throw new Error(`the scripted tree has nothing at ${JSON.stringify(rel)}`);
    return node;
  }

  #add(files: Record<string, string>, under: string): void {
    for (const [path, text] of Object.entries(files)) {
      const rel = [under, path.replace(/\/$/, "")].filter((p) => p !== "").join("/");
      const segments = rel.split("/");
      for (let i = segments.length - 1; i > 0; i--) {
        const dir = segments.slice(0, i).join("/");
        if (!this.#nodes.has(dir) && this.#isBelow(dir, under)) this.#nodes.set(dir, this.#node("directory"));
      }
      if (path.endsWith("/")) this.#nodes.set(rel, this.#node("directory"));
      else this.#nodes.set(rel, { ...this.#node("file"), bytes: encoder.encode(text) });
    }
  }

  #node(kind: EntryKind): Node {
    return { kind, ino: ++this.#lastIno, dev: 1n, bytes: new Uint8Array(0), changed: ++this.#clock };
  }

  #isBelow(path: string, dir: string): boolean {
    return dir === "" ? path !== "" : path.startsWith(`${dir}/`);
  }

  #relative(path: string): string {
    if (path === ScriptedPort.ROOT) return "";
    if (path.startsWith(`${ScriptedPort.ROOT}/`)) return path.slice(ScriptedPort.ROOT.length + 1);
    throw new Error(`the scripted port was asked for ${path}, outside its root`);
  }

  /** A descriptor of `node`: it keeps reading the object it opened, whatever the path names later. */
  #descriptor(node: Node, rel: string): FileHandle {
    this.openDescriptors++;
    let open = true;
    return {
      stat: () => infoOf(node),
      readAt: (buffer, position) => {
        this.calls.push(`read ${rel}`);
        const bytes = node.bytes.subarray(position, position + buffer.length);
        buffer.set(bytes);
        return bytes.length;
      },
      writeAll: (data) => {
        const grown = new Uint8Array(node.bytes.length + data.length);
        grown.set(node.bytes);
        grown.set(data, node.bytes.length);
        node.bytes = grown;
        node.changed = ++this.#clock;
      },
      sync: () => {},
      close: () => {
        if (open) this.openDescriptors--;
        open = false;
      },
    };
  }
}

/**
 * What an lstat or fstat of `node` reports. Its times are ticks counted from
 * the epoch, in nanoseconds: long past, so no listing is distrusted as
 * written within the racy margin, yet every change moves them.
 */
function infoOf(node: Node): FileInfo {
  return {
    kind: node.kind,
    size: node.bytes.length,
    mtimeNs: node.changed,
    ctimeNs: node.changed,
    ino: node.ino,
    dev: node.dev,
    nlink: 1,
    mode: node.kind === "directory" ? 0o755 : 0o644,
  };
}

/** A step that fails the call with `code`. */
export function fail(code: FsErrorCode): () => never {
  return () => {
    throw new FsError(code);
  };
}
