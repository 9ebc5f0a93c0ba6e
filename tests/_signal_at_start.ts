/**
 * The command line with SIGTERM and SIGINT arriving during start-up, made certain: `_signal_at_start.<ext>
 * <cli args>...` loads the signal module first, as the entries do, signals itself and waits until each signal
 * was seen, and only then loads the server, which must answer what stdin brought and exit 0.
 *
 * @module
 */
import process from "node:process";
import "../src/cli/signals.ts";

const alive = setInterval(() => {}, 1_000); // Node's signal watch does not keep the process running
// Two signals of two kinds (two of one kind may be delivered as one): they count as one stop.
for (const signal of ["SIGTERM", "SIGINT"] as const) {
  await new Promise<void>((resolve) => {
    process.once(signal, () => resolve()); // after the module's own listener, which ran first
    process.kill(process.pid, signal);
  });
}
clearInterval(alive);
const { runCli } = await import("../src/cli/run.ts");
const { nodePort } = await import("../src/ports/node.ts");
runCli(process.argv.slice(2), nodePort);
