/**
 * SIGTERM and SIGINT, caught from the first moment (the entries import this module first): before
 * `onStopSignal`, a signal ends the process with status 0; after it, the transport answers what it received.
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
