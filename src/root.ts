/**
 * `openRoot`: validates a configuration and pins the root directory by its
 * real path, once, at start.
 *
 * @module
 */
import { resolve } from "node:path";
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
 * @throws {ConfigError} when the port cannot serve on this platform, no
 *   include glob is given, the root is missing or not a directory (the
 *   message names its absolute path), or a glob or limit is invalid.
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
  } catch {
    throw new ConfigError(`${JSON.stringify(given)} does not exist or cannot be read`, "root");
  }
  if (fs.lstat(path)?.kind !== "directory") {
    throw new ConfigError(`${JSON.stringify(given)} is not a directory`, "root");
  }
  const inventory = new Inventory(fs, path, selector, limits.maxDepth);
  return Object.freeze({ path, include, exclude, selector, limits, fs, inventory });
}

/** `path` resolved against the working directory, or as given when there is none (it was removed). */
function absolute(path: string): string {
  try {
    return resolve(path);
  } catch {
    return path; // only the working directory lookup can fail
  }
}
