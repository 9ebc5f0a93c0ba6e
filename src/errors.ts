/**
 * A configuration the server cannot start with: a missing root, an invalid
 * glob or limit, a port that cannot keep the contract on this platform. The
 * message is one short line fit for stderr.
 */
export class ConfigError extends Error {
  /**
   * The `openRoot` option at fault, in the library's words (`root`,
   * `limits.maxFileBytes`), when the error is about one option. The message
   * then starts with it, so a command line can name its flag instead.
   */
  readonly option: string | undefined;
  /** What is wrong: the message without the option's name. */
  readonly problem: string;

  /**
   * Makes a configuration error.
   *
   * @param problem One short line. With `option`, the rest of a sentence
   *   that starts with the option's name (`must be at most 10`).
   * @param option The option at fault, if the error is about one.
   */
  constructor(problem: string, option?: string) {
    super(option === undefined ? problem : `${option} ${problem}`);
    this.name = "ConfigError";
    this.option = option;
    this.problem = problem;
  }
}

/**
 * A tool call that fails. Its message becomes the `isError` result text, so
 * it is one short actionable line with no stack, errno or host path.
 */
export class ToolError extends Error {
  /**
   * Makes a tool failure.
   *
   * @param message One short line, without a host path.
   */
  constructor(message: string) {
    super(message);
    this.name = "ToolError";
  }
}

/** The exact refusal for a cursor whose bound state changed. */
export const STALE_CURSOR_MESSAGE =
  "the filesystem changed since this cursor was issued; start the traversal again";

/** The exact refusal for a cursor that was not issued for this traversal. */
export const INVALID_CURSOR_MESSAGE = "cursor is not valid";

/** The exact refusal of every call once the root path no longer names the directory pinned at start. */
export const ROOT_MOVED_MESSAGE =
  "the root was moved or replaced since the server started; restart the server";
