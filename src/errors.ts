/**
 * A configuration the server cannot start with (a missing root, an invalid glob or limit, a port that cannot
 * keep the contract here). The message is one line, fit for stderr.
 */
export class ConfigError extends Error {
  /** The `openRoot` option at fault (`root`, `limits.maxFileBytes`), so a command line can name its flag. */
  readonly option: string | undefined;
  /** What is wrong: the message without the option's name. */
  readonly problem: string;

  /** Makes one from `problem`, one line; with `option`, the rest of a sentence that starts with its name. */
  constructor(problem: string, option?: string) {
    super(option === undefined ? problem : `${option} ${problem}`);
    this.name = "ConfigError";
    this.option = option;
    this.problem = problem;
  }
}

/** A failed tool call. Its message is the `isError` text: one actionable line, no stack, errno or host path. */
export class ToolError extends Error {
  /** Makes a tool failure from one short line, without a host path; `options.cause`: the failure behind it. */
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "ToolError";
  }
}

/** The refusal of a call its client cancelled (never sent: a cancelled request gets no answer). */
export const CANCELLED_MESSAGE = "cancelled";

/** The exact refusal for a cursor whose bound state changed. */
export const STALE_CURSOR_MESSAGE =
  "the filesystem changed since this cursor was issued; start the traversal again";

/** The exact refusal for a cursor that was not issued for this traversal. */
export const INVALID_CURSOR_MESSAGE = "cursor is not valid";

/** The exact refusal of every call once the root path no longer names the directory pinned at start. */
export const ROOT_MOVED_MESSAGE =
  "the root was moved or replaced since the server started; restart the server";

/** The refusal of a call that ran out of file descriptors: a file or directory is never skipped for want of one. */
export const BUSY_MESSAGE = "the server has too many files open; try again when fewer calls run";
