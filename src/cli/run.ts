/**
 * The command line, shared by `cli.ts` (Deno) and the npm build's
 * `dist/cli.js` (Node): flags, the root, and the stdio server. Only the
 * filesystem port differs between the two.
 *
 * @module
 */
import process from "node:process";
import { parseArgs } from "node:util";
import { ConfigError } from "../errors.ts";
import type { Limits } from "../limits.ts";
import { openRoot } from "../root.ts";
import { buildServer } from "../server.ts";
import { ResultLines } from "../result_line.ts";
import type { FsPort } from "../ports/fs_port.ts";
import { SERVER_NAME, VERSION } from "../version.ts";
import { StdioTransport } from "./stdio.ts";

/** Exit status for a configuration error (`EX_USAGE`). */
export const EXIT_USAGE = 64;

/**
 * The refusal of a command line without `--include`. The default serves no
 * file, so such a server could only ever answer "not found": forgetting the
 * flag is the commonest first-run mistake, and this says so at once.
 */
export const NO_INCLUDE = "at least one --include pattern is required; the default serves no file";

/** The warning printed when no include pattern can reach a root-level file. */
export const READ_ONLY_WARNING = "ptc-fs-mcp: no --include pattern matches a file in the root itself, " +
  "so write_text_file will refuse every call.";

const USAGE = `Usage: ptc-fs-mcp --root <dir> --include <glob> [--include <glob>]... [--exclude <glob>]...
                  [--max-write-bytes <n>] [--max-file-bytes <n>] [--max-result-bytes <n>]

Serves the files under <dir> to an MCP client (protocol 2026-07-28) over stdio.

  --root <dir>              directory to serve (required; pinned by its real path)
  --include <glob>          serve paths matching <glob> (required; repeatable)
  --exclude <glob>          never serve paths matching <glob> (repeatable)
  --max-write-bytes <n>     largest write_text_file payload (default 65536)
  --max-file-bytes <n>      largest file read or searched (default 268435456)
  --max-result-bytes <n>    ceiling of one encoded result (default 48000)
  -h, --help                print this help
  --version                 print the version

Globs: * matches within one path segment, ** matches any number of segments;
--include '**' serves every file.
`;

const LIMIT_FLAGS = {
  "max-write-bytes": "maxWriteBytes",
  "max-file-bytes": "maxFileBytes",
  "max-result-bytes": "maxResultBytes",
} as const satisfies Record<string, keyof Limits>;

/** The flag of each `openRoot` option a `ConfigError` can name, so an error names what the user typed. */
const FLAG_OF: Readonly<Record<string, string>> = {
  root: "--root",
  ...Object.fromEntries(Object.entries(LIMIT_FLAGS).map(([flag, key]) => [`limits.${key}`, `--${flag}`])),
};

/** A configuration error in the command line's words: the flag, not the library option. */
function cliMessage(error: ConfigError): string {
  const flag = error.option === undefined ? undefined : FLAG_OF[error.option];
  return flag === undefined ? error.message : `${flag} ${error.problem}`;
}

/** What the flags ask for: text to print, or a root to serve. */
export type CliAction =
  | { readonly print: string }
  | { readonly serve: { root: string; include: string[]; exclude: string[]; limits: Partial<Limits> } };

/** Parses flags into `openRoot` options, or says what to print instead. */
export function parseFlags(args: readonly string[]): CliAction {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...args],
      strict: true,
      allowPositionals: false,
      options: {
        root: { type: "string" },
        include: { type: "string", multiple: true },
        exclude: { type: "string", multiple: true },
        "max-write-bytes": { type: "string" },
        "max-file-bytes": { type: "string" },
        "max-result-bytes": { type: "string" },
        help: { type: "boolean", short: "h" },
        version: { type: "boolean" },
      },
    });
  } catch (error) {
    // parseArgs messages are one line already; keep only the first sentence.
    const text = error instanceof Error ? error.message.split("\n")[0] : "bad arguments";
    throw new ConfigError(`${text.replace(/\. To specify.*$/, "")} (see --help)`);
  }
  const { values } = parsed;
  if (values.help) return { print: USAGE };
  if (values.version) return { print: `${SERVER_NAME} ${VERSION}\n` };
  if (values.root === undefined) throw new ConfigError("--root is required (see --help)");
  if (values.include === undefined) throw new ConfigError(NO_INCLUDE);
  const limits: Partial<Record<keyof Limits, number>> = {};
  for (const [flag, key] of Object.entries(LIMIT_FLAGS)) {
    const raw = values[flag as keyof typeof LIMIT_FLAGS];
    if (raw === undefined) continue;
    if (!/^\d+$/.test(raw)) throw new ConfigError(`--${flag} must be a whole number of bytes`);
    limits[key] = Number(raw);
  }
  return {
    serve: { root: values.root, include: values.include, exclude: values.exclude ?? [], limits },
  };
}

/**
 * Runs the command line: prints help or version, or opens the root and
 * serves it over stdio until stdin ends or SIGTERM or SIGINT arrives; then
 * it answers every request already received and exits with status 0. A
 * configuration error prints one line on stderr and exits with `EXIT_USAGE`.
 *
 * @param args The arguments after the program name.
 * @param fs The filesystem port of this runtime.
 */
export function runCli(args: readonly string[], fs: FsPort): void {
  try {
    const action = parseFlags(args);
    if ("print" in action) {
      process.stdout.write(action.print);
      return;
    }
    const root = openRoot({ ...action.serve, fs });
    if (!root.selector.reachesRootLevel) process.stderr.write(`${READ_ONLY_WARNING}\n`);
    const results = new ResultLines(); // the server records, the transport writes (result_line.ts)
    const stdio = new StdioTransport(process.stdin, process.stdout, results);
    process.on("SIGTERM", stdio.finish);
    process.on("SIGINT", stdio.finish);
    stdio.closed.then(() => process.exit(0));
    buildServer(root, { name: SERVER_NAME, version: VERSION }, results).connect(stdio);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`${SERVER_NAME}: ${cliMessage(error)}\n`);
    process.exit(EXIT_USAGE);
  }
}
