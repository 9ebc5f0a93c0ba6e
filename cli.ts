/**
 * The Deno entry: `deno run --allow-read=<root> --allow-write=<root> cli.ts --root <root> --include '**'`.
 *
 * It needs no other permission: it reads no environment variable, spawns
 * nothing and opens no network connection.
 *
 * @module
 */
import "./src/cli/signals.ts"; // first: a stop signal during start-up is kept for the server
import { denoPort, denoStdout } from "./src/ports/deno.ts";
import { runCli } from "./src/cli/run.ts";

if (import.meta.main) runCli(Deno.args, denoPort, denoStdout());
