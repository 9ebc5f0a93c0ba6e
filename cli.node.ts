/**
 * The command-line entry of the npm package: the build bundles it into
 * `dist/server.js`, which the bin `dist/cli.js` loads once it caught stop
 * signals. `cli.ts` is the same on Deno.
 *
 * @module
 */
import "./src/cli/node_heap.ts"; // first: before anything else allocates
import "./src/cli/signals.ts"; // then: a stop signal during start-up still ends with status 0
import process from "node:process";
import { nodePort } from "./src/ports/node.ts";
import { runCli } from "./src/cli/run.ts";

if ("Deno" in globalThis) {
  // Deno can run this file, but its stdin and stdout need what `cli.ts` does: here Deno's loop ended after a
  // few requests (stdin paused with only an immediate pending), and the process exited without a word.
  process.stderr.write(
    "ptc-fs-mcp: this is the Node.js command; on Deno run cli.ts (@ptcrunner/fs-mcp/cli)\n",
  );
  process.exit(64); // a configuration error, as the command's own (`EX_USAGE`)
}

// Node reads up to 32 chunks of stdin in a row before it runs a signal's handler: a chunk a turn instead.
runCli(process.argv.slice(2), nodePort, process.stdout, { oneChunkATurn: true });
