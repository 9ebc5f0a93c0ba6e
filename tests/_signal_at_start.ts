/**
 * The command line with a SIGTERM that arrives during start-up, made certain: `_signal_at_start.<ext> <cli
 * args>...` loads the signal module first, as the entries do, signals itself and waits until the signal was
 * seen, and only then loads the server, which must answer what stdin brought and exit 0.
 *
 * @module
 */
import process from "node:process";
import "../src/cli/signals.ts";

const alive = setInterval(() => {}, 1_000); // Node's signal watch does not keep the process running
await new Promise<void>((resolve) => {
  process.once("SIGTERM", () => resolve()); // after the module's own listener, which ran first
  process.kill(process.pid, "SIGTERM");
});
clearInterval(alive);
const { runCli } = await import("../src/cli/run.ts");
const { nodePort } = await import("../src/ports/node.ts");
runCli(process.argv.slice(2), nodePort);
