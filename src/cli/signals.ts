/**
 * SIGTERM and SIGINT, caught from the first moment: the entries import this
 * module before anything else. A signal that arrives while the rest is
 * still loading (about 0.2 s), before any request was read, ends the process
 * with status 0 at once instead of killing it by signal; after that,
 * `onStopSignal` hands it to the transport, which answers every request it
 * received and then exits with status 0.
 *
 * @module
 */
import process from "node:process";

let handler: (() => void) | undefined;

function stop(): void {
  if (handler) handler();
  else process.exit(0); // nothing was received yet, so nothing is left unanswered
}

process.on("SIGTERM", stop);
process.on("SIGINT", stop);

/** Hands SIGTERM and SIGINT to `fn` from now on. */
export function onStopSignal(fn: () => void): void {
  handler = fn;
}
