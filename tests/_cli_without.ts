/**
 * The command line over the Node port as a platform without some `node:fs`
 * open flags would build it: `_cli_without.<ext> <FLAG,FLAG|-> <cli args>...`.
 * `fs.constants` cannot be changed, so the flags are dropped from a copy that
 * is handed to the port's own capability check. `-` drops nothing.
 *
 * @module
 */
import * as fs from "node:fs";
import process from "node:process";
import { runCli } from "../src/cli/run.ts";
import { missingOpenFlags } from "../src/ports/capabilities.ts";
import { nodePort } from "../src/ports/node.ts";

const [drop, ...args] = process.argv.slice(2);
const constants: Record<string, unknown> = { ...fs.constants };
for (const name of drop.split(",")) delete constants[name];
runCli(args, { ...nodePort, unsupported: missingOpenFlags(constants) });
