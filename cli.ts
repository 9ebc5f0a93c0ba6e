/**
 * The Deno entry: `deno run --allow-read=<root> --allow-write=<root> cli.ts --root <root> --include '**'`.
 *
 * It needs no other permission: it reads no environment variable, spawns
 * nothing and opens no network connection.
 *
 * @module
 */
import "./src/cli/signals.ts"; // the only static import: stop signals are caught before the server loads

if (import.meta.main) {
  // Loaded only now: Deno evaluates no module before it has loaded every static import, so the server's
  // modules imported statically would leave the process to the default signal action for their load.
  const [{ denoPort, denoStdout }, { runCli }] = await Promise.all([
    import("./src/ports/deno.ts"),
    import("./src/cli/run.ts"),
  ]).catch((error) => {
    // Its modules failed to load (run without this deno.json's imports, say): one line, not a stack.
    console.error(`ptc-fs-mcp: cannot load the server: ${String(error?.message ?? error).split("\n")[0]}`);
    Deno.exit(1);
  });
  runCli(Deno.args, denoPort, denoStdout()); // stdin as it comes: see `StdioOptions.oneChunkATurn`
}
