/**
 * `openRoot`: validates a configuration and pins the root directory by its
 * real path, once, at start.
 *
 * @module
 */
import { ConfigError } from "./errors.ts";
import { type Limits, resolveLimits } from "./limits.ts";
import { createSelector, type Selector } from "./selector.ts";
import { defaultPort } from "./ports/default.ts";
import type { FsPort } from "./ports/fs_port.ts";
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

/**
 * Validates the configuration and pins the root by its real path.
 *
 * @example Opening a root
 * ```ts ignore
 * import { openRoot } from "./root.ts";
 * const root = openRoot({ root: "./workspace", include: ["**"] });
 * ```
 *
 * @param options The root directory, globs, limits and port.
 * @returns The opened root.
 * @throws {ConfigError} when the root is missing or not a directory, no
 *   include glob is given, or a glob or limit is invalid.
 */
export function openRoot(options: RootOptions): Root {
  const fs = options.fs ?? defaultPort;
  if (!Array.isArray(options.include) || options.include.length === 0) {
    // An empty selection serves no file: a server that can only answer "not found" is a mistake.
    throw new ConfigError("include must hold at least one glob; the default serves no file");
  }
  const include = [...options.include];
  const exclude = [...(options.exclude ?? [])];
  const selector = createSelector(include, exclude);
  const limits = resolveLimits(options.limits);
  if (typeof options.root !== "string" || options.root === "") {
    throw new ConfigError("--root is required");
  }
  let path: string;
  try {
    path = fs.realPath(options.root);
  } catch {
    throw new ConfigError("the root does not exist or cannot be read");
  }
  if (fs.lstat(path)?.kind !== "directory") throw new ConfigError("the root is not a directory");
  const inventory = new Inventory(fs, path, selector, limits.maxDepth);
  return Object.freeze({ path, include, exclude, selector, limits, fs, inventory });
}
