/**
 * The command line of `cli.ts` (Deno) and `cli.node.ts` (Node): flags, the root, and the stdio server; only
 * the port differs.
 *
 * @module
 */
import process from "node:process";
import type { Writable } from "node:stream";
import { parseArgs } from "node:util";
import { ConfigError } from "../errors.ts";
import { DEFAULT_LIMITS, type Limits } from "../limits.ts";
import { openRoot, type RootOptions } from "../root.ts";
import { buildServer } from "../server.ts";
import { inputTurnFor } from "../pacing.ts";
import { escapeControl } from "../quote.ts";
import { ResultLines } from "../result_line.ts";
import type { FsPort } from "../ports/fs_port.ts";
import { PROTOCOL_VERSION, SERVER_NAME, VERSION } from "../version.ts";
import { onStopSignal } from "./signals.ts";
import { type StdioOptions, StdioTransport } from "./stdio.ts";

const EXIT_USAGE = 64; // a configuration error (`EX_USAGE`)

// Without --include the server could only answer "not found": the commonest first-run mistake.
const NO_INCLUDE = "at least one --include pattern is required; the default serves no file";
const NO_ROOT_NOR_INCLUDE =
  "--root and at least one --include pattern are required; the default serves no file (see --help)";

const READ_ONLY_WARNING = "no --include pattern matches a file in the root itself, " +
  "so write_text_file will refuse every call.";

const USAGE = `Usage: ptc-fs-mcp --root <dir> --include <glob> [--include <glob>]... [--exclude <glob>]...
                  [--max-write-bytes <n>] [--max-file-bytes <n>] [--max-result-bytes <n>]

Serves the files under <dir> to an MCP client (protocol ${PROTOCOL_VERSION}) over stdio.

  --root <dir>              directory to serve (required; pinned by its real path)
  --include <glob>          serve paths matching <glob> (required; repeatable)
  --exclude <glob>          never serve paths matching <glob> (repeatable)
  --max-write-bytes <n>     largest write_text_file payload (default ${DEFAULT_LIMITS.maxWriteBytes})
  --max-file-bytes <n>      largest file read or searched (default ${DEFAULT_LIMITS.maxFileBytes})
  --max-result-bytes <n>    ceiling of one encoded result (default ${DEFAULT_LIMITS.maxResultBytes})
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

// The flag of each `openRoot` option a `ConfigError` can name, so an error names what the user typed.
const FLAG_OF: Readonly<Record<string, string>> = {
  root: "--root",
  include: "--include",
  exclude: "--exclude",
  ...Object.fromEntries(Object.entries(LIMIT_FLAGS).map(([flag, key]) => [`limits.${key}`, `--${flag}`])),
};

/** One line on stderr, after the server's name. */
function warn(line: string): void {
  process.stderr.write(`${SERVER_NAME}: ${line}\n`);
}

function cliMessage(error: ConfigError): string {
  const flag = error.option === undefined ? undefined : FLAG_OF[error.option];
  return flag === undefined ? error.message : `${flag} ${error.problem}`;
}

/** Parses flags into `openRoot` options, or says what to print instead. */
function parseFlags(args: readonly string[]): { print: string } | { serve: RootOptions } {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...args],
      strict: true,
      allowPositionals: false,
      options: {
        // Every value flag is collected, so one given twice is refused rather than the last one winning.
        root: { type: "string", multiple: true },
        include: { type: "string", multiple: true },
        exclude: { type: "string", multiple: true },
        "max-write-bytes": { type: "string", multiple: true },
        "max-file-bytes": { type: "string", multiple: true },
        "max-result-bytes": { type: "string", multiple: true },
        help: { type: "boolean", short: "h" },
        version: { type: "boolean" },
      },
    });
  } catch (error) {
    const text = error instanceof Error ? error.message : "bad arguments";
    // A value that starts with a dash (`--max-write-bytes -1`) reads as a flag: parseArgs calls it ambiguous.
    const flag = /^Option '--([a-z-]+)' argument is ambiguous/.exec(text)?.[1];
    if (flag !== undefined) {
      throw new ConfigError(
        Object.hasOwn(LIMIT_FLAGS, flag)
          ? `--${flag} must be a whole number of bytes`
          : `--${flag} needs a value; for one that starts with a dash, write --${flag}=<value>`,
      );
    }
    throw new ConfigError(`${escapeControl(text)} (see --help)`); // it quotes the flag as typed
  }
  const { values } = parsed;
  if (values.help) return { print: USAGE };
  if (values.version) return { print: `${SERVER_NAME} ${VERSION}\n` };
  const once = (flag: "root" | keyof typeof LIMIT_FLAGS): string | undefined => {
    const given = values[flag];
    if (given && given.length > 1) {
      throw new ConfigError(`--${flag} was given ${given.length} times; give it once`);
    }
    return given?.[0];
  };
  const root = once("root");
  // Both missing (a bare `ptc-fs-mcp`): one line names both, so the first run needs one fix, not two.
  if (root === undefined && values.include === undefined) throw new ConfigError(NO_ROOT_NOR_INCLUDE);
  if (root === undefined) throw new ConfigError("--root is required (see --help)");
  if (values.include === undefined) throw new ConfigError(NO_INCLUDE);
  const limits: Partial<Record<keyof Limits, number>> = {};
  for (const [flag, key] of Object.entries(LIMIT_FLAGS)) {
    const raw = once(flag as keyof typeof LIMIT_FLAGS);
    if (raw === undefined) continue;
    if (!/^\d+$/.test(raw)) throw new ConfigError(`--${flag} must be a whole number of bytes`);
    limits[key] = Number(raw);
  }
  return { serve: { root, include: values.include, exclude: values.exclude ?? [], limits } };
}

/**
 * Prints help or version, or serves the root over stdio until stdin ends or SIGTERM or SIGINT arrives, then
 * answers every request already received and exits 0. A configuration error prints one line on stderr and
 * exits 64.
 *
 * @param args The arguments after the program name.
 * @param fs The filesystem port of this runtime.
 * @param output Where the protocol goes: stdout, as a stream whose writes do not block the event loop (so
 *   input keeps being read while a host that has not started reading leaves the pipe full).
 * @param options How the transport reads stdin, as this runtime needs it.
 */
export function runCli(
  args: readonly string[],
  fs: FsPort,
  output: Writable = process.stdout,
  options: StdioOptions = {},
): void {
  try {
    const action = parseFlags(args);
    if ("print" in action) {
      // Then exit: a stop signal kept meanwhile must not meet the runtime's own teardown.
      process.stdout.write(action.print, () => process.exit(0));
      return;
    }
    const root = openRoot({ ...action.serve, fs });
    if (!root.selector.reachesRootLevel) warn(READ_ONLY_WARNING);
    const results = new ResultLines(); // the server records, the transport writes
    const stdio = new StdioTransport(process.stdin, output, results, warn, options);
    const turn = inputTurnFor(fs);
    stdio.closed.then(() => process.exit(0));
    // Once the transport reads: a signal that came during start-up then takes in what was sent before it.
    buildServer(root, undefined, results).connect(stdio).then(() => {
      onStopSignal(() => void stdio.finishAfterInput(turn));
    });
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    warn(cliMessage(error));
    process.exit(EXIT_USAGE);
  }
}
