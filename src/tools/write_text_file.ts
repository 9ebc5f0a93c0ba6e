/**
 * `write_text_file`: creates or replaces one file directly in the root, atomically: the bytes go to a
 * temporary file created exclusively in the root, are flushed, and are renamed over the target, so no
 * reader, crash or hard link sees a half-written file.
 *
 * @module
 */
import * as z from "zod";
import { randomBytes } from "node:crypto";
import { utf8 } from "../bytes.ts";
import { refusal } from "../confine.ts";
import { BUSY_MESSAGE, ToolError } from "../errors.ts";
import { Digest } from "../hashing.ts";
import { Pacer } from "../pacing.ts";
import { type FileHandle, FsError } from "../ports/fs_port.ts";
import { MAX_SEGMENT_BYTES, roomBelow, SYSTEM_PATH_BYTES } from "../paths.ts";
import { refuseArgument } from "../quote.ts";
import type { Root } from "../root.ts";
import { isTempName, TEMP_NAME_BYTES, tempName } from "../temp_names.ts";
import { argumentsSchema, READ_ONLY, stringArg, type Tool } from "./tool.ts";

const WRITE_NAME = new RegExp(`^[a-z0-9._-]{1,${MAX_SEGMENT_BYTES}}$`);

/** The exact refusal when no include pattern reaches the root level. */
export const NO_ROOT_LEVEL_INCLUDE = "no --include pattern of this root matches a file in the root itself";

const inputSchema = argumentsSchema({
  path: stringArg().describe("A lowercase file name ([a-z0-9._-]) directly in the root; no directories."),
  content: stringArg(false).describe("The complete new content, as UTF-8 text."), // never echoed
});

const outputSchema = z.object({
  path: z.string(),
  bytes: z.number().int().nonnegative().describe("Bytes written."),
  content_hash: z.string().describe("sha256:<hex> of the bytes written."),
});

const ROOT_PATH_TOO_LONG =
  `this root's own path is too long to write in: with it, a write's temporary file ` +
  `would pass the system's ${SYSTEM_PATH_BYTES}-byte path limit`;

/** The `write_text_file` tool. */
export const writeTextFile: Tool<typeof inputSchema, typeof outputSchema> = {
  name: "write_text_file",
  title: "Write a text file",
  description: "Create or replace a UTF-8 text file directly in the root, atomically. `path` is one " +
    "lowercase file name ([a-z0-9._-]), never a directory. The whole content is replaced. The result " +
    "gives the byte count and the content_hash a following read_text_file will report.",
  inputSchema,
  outputSchema,
  annotations: { ...READ_ONLY, readOnlyHint: false, destructiveHint: true },
  async run({ path, content }, { root, signal }) {
    if (!root.selector.reachesRootLevel) throw new ToolError(NO_ROOT_LEVEL_INCLUDE);
    const room = roomBelow(root.path); // for a name, or the write's temporary file's
    if (TEMP_NAME_BYTES > room) throw new ToolError(ROOT_PATH_TOO_LONG);
    const refused = path.length > MAX_SEGMENT_BYTES && !/[^a-z0-9._-]/.test(path) // a search: any length
      ? `path is longer than ${MAX_SEGMENT_BYTES} bytes, the longest file name`
      : !WRITE_NAME.test(path) || path === "." || path === ".."
      ? "path must be one lowercase file name of [a-z0-9._-], with no directory"
      : path.length > root.limits.maxPathBytes // ASCII now: a byte a character
      ? `path is longer than ${root.limits.maxPathBytes} bytes (maxPathBytes), so it could not be read back`
      : path.length > room
      ? `path is longer than the ${room} bytes the root's own path leaves of the system's ` +
        `${SYSTEM_PATH_BYTES}, so it could not be read back`
      : isTempName(path)
      ? "path is reserved for the temporary files of writes, which are never served"
      : !root.selector.isServed(path)
      ? "path is not selected by this root's --include/--exclude, so it cannot be written"
      : undefined;
    if (refused !== undefined) throw refuseArgument(refused, path);
    if (/\p{Surrogate}/u.test(content)) {
      throw new ToolError("content must be Unicode text: it holds a lone surrogate, which has no UTF-8 form");
    }
    const bytes = utf8(content);
    if (bytes.length > root.limits.maxWriteBytes) {
      throw new ToolError(
        `content is ${
          bytesText(bytes.length)
        }, more than the ${root.limits.maxWriteBytes}-byte write limit ` +
          "(--max-write-bytes)",
      );
    }
    if (bytes.length > root.limits.maxFileBytes) { // a write you could not read back is a trap
      throw new ToolError(
        `content is ${bytesText(bytes.length)}, more than the ${root.limits.maxFileBytes}-byte file limit ` +
          "(--max-file-bytes), so it could not be read back",
      );
    }
    let existing;
    let listed = false;
    const validated = new Map<string, unknown>(); // the root, as this call read it
    try {
      existing = root.lstat(path);
      // On a filesystem that folds case or Unicode forms, the name may reach a file the root spells
      // otherwise, and maybe excludes: only the file the root lists under this very name is replaced.
      // A big root is read with pauses (`Root.prepared`), before anything is written.
      if (existing) {
        const file = existing.kind === "file";
        listed = await root.prepared("", new Pacer(root, signal), () => file && root.isFile(path), validated);
      }
    } catch (error) {
      throw refusal(error, path);
    }
    if (existing && !listed) throw root.accepting(validated, () => unlistedTarget(root, path));

    const temp = tempName(randomBytes(8).toString("hex"));
    let file: FileHandle | undefined;
    try {
      // The old file's permission bits, but never set-user-ID, set-group-ID or sticky: a write
      // gives the file new content and this process's owner, which those bits must not carry over.
      file = root.createExclusive(temp, existing ? existing.mode & 0o777 : undefined);
      file.writeAll(bytes);
      file.sync();
      file.close();
      root.rename(temp, path);
    } catch (error) {
      file?.close();
      try {
        root.remove(temp);
      } catch { /* it was never created, or is already gone */ }
      throw notWritten(error, path);
    }
    return { value: { path, bytes: bytes.length, content_hash: new Digest().bytes(bytes).contentHash() } };
  },
};

/**
 * The refusal of a write whose name an lstat found taken by something the root does not list as a file under
 * that very name. Told by what the root lists under it: the lstat may have reached another spelling's entry
 * (a filesystem that folds case or Unicode forms), perhaps an excluded one, whose kind must not show.
 */
function unlistedTarget(root: Root, path: string): unknown {
  let kind;
  try {
    kind = root.listedKind(path);
    // Gone now: removed since the lstat, not reached under another spelling (or unknown in a big root).
    if (kind !== "symlink" && kind !== "file" && root.lstat(path) === null) return changedMeanwhile(path);
  } catch (error) {
    return refusal(error, path);
  }
  switch (kind) {
    case "symlink":
      return new ToolError(`${path} is a symbolic link; links are never written through`);
    case undefined: // a root too big to read here: nothing is said that is not sure
      return refuseArgument("path names something other than a regular file this root serves", path);
    case null:
      return refuseArgument(
        "path reaches an entry the root spells otherwise (this filesystem folds case or Unicode forms), " +
          "so it cannot be written",
        path,
      );
    case "file":
      return changedMeanwhile(path);
    default:
      return new ToolError(`${path} exists and is not a regular file`);
  }
}

/** The refusal of a write that failed once begun: nothing changed, and why, in words. */
function notWritten(error: unknown, path: string): ToolError {
  const code = error instanceof FsError ? error.code : undefined;
  const why = code === "denied"
    ? "permission denied in the root"
    : code === "busy"
    ? BUSY_MESSAGE
    : code === "io"
    ? "the filesystem refused it (full, read-only or failing)"
    : code !== undefined
    ? "the root changed meanwhile; try again"
    : "it failed";
  return new ToolError(`${path} was not written, and nothing changed: ${why}`, { cause: error });
}

function changedMeanwhile(path: string): ToolError {
  return new ToolError(`${path} changed while it was checked; try again`);
}

function bytesText(n: number): string {
  return n === 1 ? "1 byte" : `${n} bytes`;
}
