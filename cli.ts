/**
 * The Deno entry: `deno run --allow-read=<root> --allow-write=<root> cli.ts --root <root> --include '**'`.
 *
 * It needs no other permission: it reads no environment variable, spawns
 * nothing and opens no network connection.
 *
 * @module
 */
import "./src/cli/signals.ts"; // first: a stop signal during start-up is kept for the server

if (import.meta.main) {
  // Loaded after the signals are caught: loading the server (the SDK and zod) is most of the start-up.
  const [{ denoPort, denoStdout }, { runCli }] = await Promise.all([
    import("./src/ports/deno.ts"),
    import("./src/cli/run.ts"),
  ]);
  runCli(Deno.args, denoPort, denoStdout());
}
