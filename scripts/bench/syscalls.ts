/**
 * The system-call floor's recording: runs a traversal on an in-process
 * server (the same core as the binary) whose filesystem port logs every
 * operation, and writes each call's tool, arguments, page and operations to
 * a JSON-lines file for `bare_server.mjs syscalls`. That floor makes the
 * very operations the server made for a call, and nothing of its logic,
 * before answering with the page the server gave: what is left between it
 * and the server is the server's own work on the bytes those calls return.
 *
 * An operation is `["lstat", path]`, `["readDir", path]`, `["open", path]`
 * (the port's checked open: lstat, no-follow open, fstat), its path relative
 * to the root (`""`: the root itself), or one on the
 * call's `h`-th open descriptor: `["fstat", h]`, `["read", h, length,
 * position]`, `["close", h]`. A write inside a recorded call is an error:
 * the floor replays reads only. The recording runs this checkout's core,
 * also when `--deno-repo` points the Deno server at another one.
 *
 * @module
 */
import type { Caller } from "../../tests/_client.ts";
import { InProcessServer } from "../../tests/_inprocess.ts";
import { denoPort } from "../../src/ports/deno.ts";
import type { FileHandle, FsPort } from "../../src/ports/fs_port.ts";
import { openRoot } from "../../mod.ts";
import type { Limits } from "../../mod.ts";

/** One recorded port operation (see the module's text). */
export type Op = [string, ...(string | number)[]];

/** The operations of the call in progress, and how many descriptors it opened so far. */
interface CallLog {
  readonly ops: Op[];
  opened: number;
}

/**
 * `denoPort` with every operation inside a call appended to `current()` (nothing is logged between calls),
 * its path relative to `base` (`""`: the root itself), so the floor replays it under the root it is given.
 */
function recordingPort(base: string, current: () => CallLog | undefined): FsPort {
  const relative = (path: string) => {
    if (path === base) return "";
    if (!path.startsWith(`${base}/`)) {
      throw new Error("the system-call floor records paths under the root only");
    }
    return path.slice(base.length + 1);
  };
  const note = (op: Op) => current()?.ops.push(op);
  const refuse = (what: string) => {
    if (current()) throw new Error(`the system-call floor replays reads; a call did ${what}`);
  };
  return {
    ...denoPort,
    lstat(path) {
      note(["lstat", relative(path)]);
      return denoPort.lstat(path);
    },
    readDir(path) {
      note(["readDir", relative(path)]);
      return denoPort.readDir(path);
    },
    readDirPaced(path, pause) {
      note(["readDir", relative(path)]);
      return denoPort.readDirPaced(path, pause);
    },
    openRead(path): FileHandle {
      note(["open", relative(path)]);
      const log = current();
      const h = log ? log.opened++ : 0;
      const file = denoPort.openRead(path);
      return {
        ...file,
        stat() {
          note(["fstat", h]);
          return file.stat();
        },
        readAt(buffer, position) {
          note(["read", h, buffer.length, position]);
          return file.readAt(buffer, position);
        },
        close() {
          note(["close", h]);
          file.close();
        },
      };
    },
    createExclusive(path, mode) {
      refuse("an exclusive create");
      return denoPort.createExclusive(path, mode);
    },
    rename(from, to) {
      refuse("a rename");
      denoPort.rename(from, to);
    },
    remove(path) {
      refuse("a remove");
      denoPort.remove(path);
    },
  };
}

/**
 * Runs `traverse` against a fresh in-process server on `root` (`--include '**'`, `limits`), once untimed
 * first when `warm`, and writes every call of the recorded run to `file` as `{tool, args, page, ops}`.
 * Returns the number of calls recorded.
 */
export async function recordSyscalls(
  root: string,
  file: string,
  traverse: (caller: Caller) => Promise<unknown>,
  options: { warm?: boolean; limits?: Partial<Limits> } = {},
): Promise<number> {
  let log: CallLog | undefined;
  const server = await InProcessServer.serve(
    openRoot({
      root,
      include: ["**"],
      limits: options.limits,
      fs: recordingPort(Deno.realPathSync(root), () => log),
    }),
  );
  const lines: string[] = [];
  const recording: Caller = {
    label: "in-process recording server",
    async call(tool, args = {}) {
      const { ops } = log = { ops: [], opened: 0 };
      try {
        const response = await server.call(tool, args);
        const page = response.result?.structuredContent;
        lines.push(JSON.stringify({ tool, args, page, ops }) + "\n");
        return response;
      } finally {
        log = undefined;
      }
    },
  };
  try {
    if (options.warm) await traverse(server);
    await traverse(recording);
  } finally {
    await server.close();
  }
  await Deno.writeTextFile(file, lines.join(""));
  return lines.length;
}
