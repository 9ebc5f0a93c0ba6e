/**
 * `openRoot`: validates a configuration and pins the root directory, once,
 * at start: by its real path, and by its identity (device and inode), which
 * every call checks again (`checkRoot` in `confine.ts`). The root directory
 * stays open (one descriptor) while the root is in use.
 *
 * @module
 */
import { resolve } from "node:path";
import { ConfigError } from "./errors.ts";
import { type Limits, resolveLimits } from "./limits.ts";
import { createSelector, type Selector } from "./selector.ts";
import { defaultPort } from "./ports/default.ts";
import { type DirectoryHold, FsError, type FsPort } from "./ports/fs_port.ts";
import { Inventory } from "./inventory.ts";

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
  /** The filesystem port; defaults to the runtime's own. */
  fs?: FsPort;
}

/** An opened, pinned root: everything a tool needs. */
export interface Root {
  /** The root's real absolute path. Never shown to a client. */
  readonly path: string;
  /** The root directory's device and inode at start; a call finding another is refused. */
  readonly identity: { readonly dev: bigint; readonly ino: bigint };
  /** The include globs, as given. */
  readonly include: readonly string[];
  /** The exclude globs, as given. */
  readonly exclude: readonly string[];
  /** What is served. */
  readonly selector: Selector;
  /** The effective limits. */
  readonly limits: Limits;
  /** The filesystem port. */
  readonly fs: FsPort;
  /**
   * The served-file inventory, revalidated on every call. Internal to the
   * tools; not part of the library API.
   *
   * @ignore
   */
  readonly inventory: Inventory;
}

/** Closes a root's directory descriptor once nothing uses the root any more (a host may open many). */
const released = new FinalizationRegistry<DirectoryHold>((hold) => hold.close());

/**
 * Validates the configuration and pins the root by its real path and its
 * identity (device and inode).
 *
 * @example Opening a root
 * ```ts ignore
 * import { openRoot } from "./root.ts";
 * const root = openRoot({ root: "./workspace", include: ["**"] });
 * ```
 *
 * @param options The root directory, globs, limits and port.
 * @returns The opened root.
 * @throws {ConfigError} when the port cannot serve on this platform, no
 *   include glob is given, the root is missing, not a directory or not
 *   permitted (the message names its absolute path), or a glob or limit is
 *   invalid.
 */
export function openRoot(options: RootOptions): Root {
  const fs = options.fs ?? defaultPort;
  if (fs.unsupported !== undefined) throw new ConfigError(fs.unsupported);
  if (!Array.isArray(options.include) || options.include.length === 0) {
    // An empty selection serves no file: a server that can only answer "not found" is a mistake.
    throw new ConfigError("must hold at least one glob; the default serves no file", "include");
  }
  const include = [...options.include];
  const exclude = [...(options.exclude ?? [])];
  const selector = createSelector(include, exclude);
  const limits = resolveLimits(options.limits);
  if (typeof options.root !== "string" || options.root === "") {
    throw new ConfigError("is required", "root");
  }
  // The caller's own argument, made absolute, so a relative root that missed says where it looked.
  const given = absolute(options.root);
  let path: string;
  try {
    path = fs.realPath(given);
  } catch (error) {
    // Outside a Deno grant even a missing path is "denied": either way, the path as given is the user's to check.
    throw error instanceof FsError ? rootRefusal(given, "does not exist or cannot be read") : error;
  }
  // Held open while the root is in use: a root removed and re-created at its path would
  // otherwise get the very inode number back, and pass for the pinned one.
  let hold: DirectoryHold | undefined;
  let info;
  try {
    hold = fs.holdDirectory(path);
    info = hold.stat();
  } catch (error) {
    hold?.close();
    if (!(error instanceof FsError)) throw error;
    // Deno checks a permission against the path as written, without resolving links: a grant on a
    // path through a symlink does not cover the real path this server pins and opens.
    throw rootRefusal(
      given,
      error.code === "denied"
        ? "is not permitted; grant read and write permission on its real path (no symlink in it)"
        : error.code === "not_directory"
        ? "is not a directory"
        : "does not exist or cannot be read",
    );
  }
  const identity = Object.freeze({ dev: info.dev, ino: info.ino });
  const inventory = new Inventory(fs, path, selector, limits.maxDepth);
  const root = Object.freeze({ path, identity, include, exclude, selector, limits, fs, inventory });
  released.register(root, hold);
  return root;
}

/** The refusal of the root given as `given`, in the library's words. */
function rootRefusal(given: string, problem: string): ConfigError {
  return new ConfigError(`${JSON.stringify(given)} ${problem}`, "root");
}

/** `path` resolved against the working directory, or as given when there is none (it was removed). */
function absolute(path: string): string {
  try {
    return resolve(path);
  } catch {
    return path; // only the working directory lookup can fail
  }
}
