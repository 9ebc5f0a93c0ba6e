/**
 * The files a `search_text` scope names, and the digest of their paths that its cursor binds. A scope may
 * hold every file of a huge root: listing and hashing its paths pause like the rest of the call's work.
 *
 * @module
 */
import { admit, notServed, refusal } from "../confine.ts";
import { Digest } from "../hashing.ts";
import type { Tree } from "../listing.ts";
import { type Pacer, PATHS_PER_CHECKPOINT } from "../pacing.ts";
import { parentOf } from "../paths.ts";
import type { Root } from "../root.ts";

/** What `scopeFiles` finds: the files in path order, and whether the scope named one file. */
export interface ScopeFiles {
  readonly files: string[];
  readonly named: boolean;
}

/**
 * The served files a scope names: one file (`named`: a file it cannot search is then refused, not skipped),
 * or every file below a directory. `validated` gets the directories the listing validated.
 */
export async function scopeFiles(
  root: Root,
  scope: string,
  pacer: Pacer,
  validated: Map<string, unknown>,
): Promise<ScopeFiles> {
  const may = admit(root, scope, "either"); // from the name first: an unserved scope is never touched
  let files: string[] = [];
  try {
    if (may.file && await root.prepared(parentOf(scope), pacer, () => root.isFile(scope), validated)) {
      return { files: [scope], named: true };
    }
    if (may.directory) {
      const tree = await root.walkPaced(scope, Infinity, pacer, () => root.subtree(scope), validated);
      // The subtree is immutable, so other calls may run while its paths are listed.
      if (tree) files = await filesOf(tree, scope === "" ? "" : `${scope}/`, pacer);
    }
  } catch (error) {
    throw refusal(error, scope);
  }
  // As the lookups above took the directories: a big one that just changed is not read again in one go.
  if (scope !== "" && files.length === 0) throw root.accepting(validated, () => notServed(root, scope));
  return { files, named: false };
}

/** The served file paths of `tree` (its directory's path and `/` is `prefix`), bytewise, with checkpoints. */
export async function filesOf(
  tree: Tree,
  prefix: string,
  pacer: Pick<Pacer, "checkpoint">,
): Promise<string[]> {
  const files: string[] = [];
  for (const path of tree.files(prefix)) {
    if (files.push(path) % PATHS_PER_CHECKPOINT === 0) await pacer.checkpoint();
  }
  return files;
}

/** SHA-256 hex of the paths, each ended by a NUL (which no path holds, unlike a newline), with checkpoints. */
export async function pathsDigest(
  files: readonly string[],
  pacer: Pick<Pacer, "checkpoint">,
): Promise<string> {
  const digest = new Digest();
  for (let at = 0; at < files.length; at += PATHS_PER_CHECKPOINT) {
    digest.text(`${files.slice(at, at + PATHS_PER_CHECKPOINT).join("\0")}\0`);
    await pacer.checkpoint();
  }
  return digest.hex();
}
