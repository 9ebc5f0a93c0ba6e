/**
 * `openRoot` validates a configuration and pins the root at start by its
 * real path and identity (device and inode). The `Root` gives the tools the
 * few verbs they need on paths relative to the root; every call checks the
 * pin first (`checkPin`).
 *
 * @module
 */
import { resolve } from "node:path";
import { ConfigError, ROOT_MOVED_MESSAGE, ToolError } from "./errors.ts";
import { type Limits, resolveLimits } from "./limits.ts";
import { createSelector, type Selector } from "./selector.ts";
import type { DirectoryHold, FileHandle, FileInfo, FsPort } from "./ports/fs_port.ts";
import { FsError } from "./ports/fs_port.ts";
import { type Found, Inventory } from "./inventory.ts";
import type { ServedEntries } from "./listing.ts";

/** What `openRoot` accepts. */
export interface RootOptions {
  /** The directory to serve, resolved against the working directory. */
  root: string;
  /** Globs that select served paths; at least one (`["**"]` serves every file). */
  include: readonly string[];
  /** Globs that narrow the selection. */
  exclude?: readonly string[];
  /** Limits to change; the rest keep `DEFAULT_LIMITS`. */
  limits?: Partial<Limits>;
  /** The filesystem port; the entry point you imported supplies its runtime's. */
  fs?: FsPort;
}

// Closes a root's directory descriptor once nothing uses the root any more (a host may open many).
const released = new FinalizationRegistry<DirectoryHold>((hold) => hold.close());

/** An opened, pinned root. Open one with `openRoot`; hand it to `createServer`. */
export class Root {
  /** The root's real absolute path. Never shown to a client. */
  readonly path: string;
  /** The include globs, as given. */
  readonly include: readonly string[];
  /** The exclude globs, as given. */
  readonly exclude: readonly string[];
  /** What is served, decided from relative paths alone. */
  readonly selector: Selector;
  /** The effective limits. */
  readonly limits: Limits;
  /** The filesystem port. */
  readonly fs: FsPort;
  readonly #pin: FileInfo;
  readonly #inventory: Inventory;

  /** @ignore Use `openRoot`. */
  constructor(
    fs: FsPort,
    path: string,
    pin: FileInfo,
    options: RootOptions,
    selector: Selector,
    limits: Limits,
  ) {
    this.fs = fs;
    this.path = path;
    this.#pin = pin;
    this.include = Object.freeze([...options.include]);
    this.exclude = Object.freeze([...(options.exclude ?? [])]);
    this.selector = selector;
    this.limits = limits;
    this.#inventory = new Inventory(fs, path, selector, limits.maxDepth, pin);
  }

  /**
   * Throws `ToolError` when the root path no longer names the pinned
   * directory (renamed, removed, replaced), `FsError` when it cannot be looked at.
   */
  checkPin(): void {
    const now = this.fs.lstat(this.path);
    if (now?.kind !== "directory" || now.dev !== this.#pin.dev || now.ino !== this.#pin.ino) {
      throw new ToolError(ROOT_MOVED_MESSAGE);
    }
  }

  /** No-follow lstat of a relative path (`""`: the root); `null` when nothing is there. */
  lstat(rel: string): FileInfo | null {
    return this.fs.lstat(this.#abs(rel));
  }

  /** Opens a regular file for reading, never through a link at its last component. */
  openRead(rel: string): FileHandle {
    return this.fs.openRead(this.#abs(rel));
  }

  /** Creates a new file exclusively, `mode` set through the descriptor. */
  createExclusive(rel: string, mode?: number): FileHandle {
    return this.fs.createExclusive(this.#abs(rel), mode);
  }

  /** Renames `from` over `to`, both relative. */
  rename(from: string, to: string): void {
    this.fs.rename(this.#abs(from), this.#abs(to));
  }

  /** Removes a file. */
  remove(rel: string): void {
    this.fs.remove(this.#abs(rel));
  }

  /**
   * The served entries of a directory, or `null` when it is none the selection reaches.
   * @internal
   */
  entries(dir: string): ServedEntries | null {
    return this.#inventory.entries(dir);
  }

  /** Whether `rel` is a served file, spelled exactly as its directory lists it. */
  isFile(rel: string): boolean {
    return this.#inventory.isFile(rel);
  }

  /** Whether anything at or below `dir` is served. */
  hasServed(dir: string): boolean {
    return this.#inventory.hasServed(dir);
  }

  /**
   * A page of served paths containing `query`, after `after` (see `Inventory.find`).
   * @internal
   */
  find(query: string, after: string | undefined, max: number): Found {
    return this.#inventory.find(query, after, max);
  }

  /** Served file paths at or below `dir`, in bytewise order. */
  files(dir: string): Iterable<string> {
    return this.#inventory.files(dir);
  }

  #abs(rel: string): string {
    return rel === "" ? this.path : `${this.path}/${rel}`;
  }
}

/**
 * Validates the configuration and pins the root. The root directory stays
 * open while the root is in use: removed and re-created at its path, it
 * would otherwise get the very inode number back (ext4 hands it out at once).
 * Throws `ConfigError` when the port cannot serve here, `include` is empty, a
 * glob or limit is invalid, or the root is missing, not a directory or not
 * permitted (the message names its absolute path).
 *
 * @example Opening a root on Deno's port
 * ```ts
 * import assert from "node:assert/strict";
 * import { openRoot } from "./root.ts";
 * import { denoPort } from "./ports/deno.ts";
 * const dir = Deno.makeTempDirSync();
 * Deno.writeTextFileSync(`${dir}/a.md`, "# A\n");
 * const root = openRoot({ root: dir, include: ["*.md"], fs: denoPort });
 * assert.deepEqual([...root.files("")], ["a.md"]);
 * Deno.removeSync(dir, { recursive: true });
 * ```
 */
export function openRoot(options: RootOptions & { fs: FsPort }): Root {
  const { fs } = options;
  if (fs.unsupported !== undefined) throw new ConfigError(fs.unsupported);
  if (!Array.isArray(options.include) || options.include.length === 0) {
    // An empty selection serves no file: a server that can only answer "not found" is a mistake.
    throw new ConfigError("must hold at least one glob; the default serves no file", "include");
  }
  const selector = createSelector(options.include, options.exclude ?? []);
  const limits = resolveLimits(options.limits);
  if (typeof options.root !== "string" || options.root === "") throw new ConfigError("is required", "root");
  // The caller's own argument, made absolute, so a relative root that missed says where it looked.
  const given = absolute(options.root);
  const refuse = (problem: string) => new ConfigError(`${JSON.stringify(given)} ${problem}`, "root");
  let path: string;
  try {
    path = fs.realPath(given);
  } catch (error) {
    // Outside a Deno grant even a missing path is "denied": either way, the path is the user's to check.
    throw error instanceof FsError ? refuse("does not exist or cannot be read") : error;
  }
  let hold: DirectoryHold | undefined;
  let pin: FileInfo;
  try {
    hold = fs.holdDirectory(path);
    pin = hold.stat();
  } catch (error) {
    hold?.close();
    if (!(error instanceof FsError)) throw error;
    // Deno checks a permission against the path as written, without resolving links: a grant on a
    // path through a symlink does not cover the real path this server pins and opens.
    if (error.code === "denied") {
      throw refuse(
        "is not permitted; grant read and write permission on its real path, and give that path as the root (no symlink in it)",
      );
    }
    throw refuse(error.code === "not_directory" ? "is not a directory" : "does not exist or cannot be read");
  }
  const root = new Root(fs, path, pin, options, selector, limits);
  released.register(root, hold);
  return root;
}

/** `path` resolved against the working directory, or as given when there is none (it was removed). */
function absolute(path: string): string {
  try {
    return resolve(path);
  } catch {
    return path; // only the working directory lookup can fail
  }
}
