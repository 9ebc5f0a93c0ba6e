/**
 * The Deno entry: `deno run --allow-read=<root> --allow-write=<root> cli.ts --root <root> --include '**'`.
 *
 * It needs no other permission: it reads no environment variable, spawns
 * nothing and opens no network connection.
 *
 * @module
 */
import "./src/cli/signals.ts"; // first: a stop signal during start-up still ends with status 0
import { denoPort } from "./src/ports/deno.ts";
import { runCli } from "./src/cli/run.ts";

if (import.meta.main) runCli(Deno.args, denoPort);
