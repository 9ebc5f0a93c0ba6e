/**
 * `openRoot`: validates a configuration and pins the root directory, once,
 * at start: by its real path, and by its identity (device and inode), which
 * every call checks again (`checkRoot` in `confine.ts`). The root directory
 * stays open (one descriptor) while the root is in use.
 *
 * @module
 */
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
  /** Globs that select served paths. The default selects nothing. */
  include?: readonly string[];
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
 * @throws {ConfigError} when the root is missing, not a directory or not
 *   permitted, or a glob or limit is invalid.
 */
export function openRoot(options: RootOptions): Root {
  const fs = options.fs ?? defaultPort;
  const include = [...(options.include ?? [])];
  const exclude = [...(options.exclude ?? [])];
  const selector = createSelector(include, exclude);
  const limits = resolveLimits(options.limits);
  if (typeof options.root !== "string" || options.root === "") {
    throw new ConfigError("--root is required");
  }
  let path: string;
  let hold: DirectoryHold | undefined;
  let info;
  try {
    path = fs.realPath(options.root);
    // Held open while the root is in use: a root removed and re-created at its path would
    // otherwise get the very inode number back, and pass for the pinned one.
    hold = fs.holdDirectory(path);
    info = hold.stat();
  } catch (error) {
    hold?.close();
    if (!(error instanceof FsError)) throw error;
    if (error.code === "not_directory") throw new ConfigError("the root is not a directory");
    // Deno checks a permission against the path as written, without resolving links: a grant
    // on a path through a symlink does not cover the real path this server pins.
    if (error.code === "denied") {
      throw new ConfigError(
        "permission denied on the root; grant read and write permission on its real path (no symlink in it)",
      );
    }
    throw new ConfigError("the root does not exist or cannot be read");
  }
  const identity = Object.freeze({ dev: info.dev, ino: info.ino });
  const inventory = new Inventory(fs, path, selector, limits.maxDepth);
  const root = Object.freeze({ path, identity, include, exclude, selector, limits, fs, inventory });
  released.register(root, hold);
  return root;
}
