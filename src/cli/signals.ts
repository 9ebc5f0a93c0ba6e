/**
 * SIGTERM and SIGINT, caught from the first moment: this module is the only static import of both command
 * lines (`cli.ts`, and the npm bin the build writes), and the server's code (whose loading takes most of the
 * start-up) is imported after it ran. A signal before
 * `onStopSignal` is kept and handed over there, so a stop during start-up still answers what was sent and
 * ends with status 0; after it, the transport answers what it received.
 *
 * The state lives on `globalThis` under a registered symbol: the npm bin loads this module on its own, ahead
 * of the bundle that holds a second copy of it, and both must be one.
 *
 * @module
 */
import process from "node:process";

interface StopSignals {
  handler?: () => void;
  pending: number; // signals that arrived before the handler
}

const KEY = Symbol.for("ptc-fs-mcp.stop-signals");
const registry = globalThis as typeof globalThis & { [KEY]?: StopSignals };

function install(): StopSignals {
  const state: StopSignals = { pending: 0 };
  const stop = () => {
    if (state.handler) state.handler();
    else state.pending++;
  };
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
  return state;
}

const signals = registry[KEY] ??= install();

/**
 * Hands SIGTERM and SIGINT to `fn` from now on, and at once one for those that arrived before, however many
 * came during start-up.
 */
export function onStopSignal(fn: () => void): void {
  signals.handler = fn;
  if (signals.pending === 0) return;
  signals.pending = 0;
  fn();
}
