/**
 * A configuration the server cannot start with: a missing root, an invalid
 * glob or limit. The message is one short line fit for stderr.
 */
export class ConfigError extends Error {
  /**
   * Makes a configuration error.
   *
   * @param message One short line, without a host path.
   */
  constructor(message: string) {
    super(message);
    this.name = "ConfigError";
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
