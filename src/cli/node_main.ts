/**
 * The Node.js entry of the npm package (`dist/cli.js` imports it).
 *
 * @module
 */
import "./node_heap.ts"; // first: before anything else allocates
import process from "node:process";
import { nodePort } from "../ports/node.ts";
import { runCli } from "./run.ts";

runCli(process.argv.slice(2), nodePort);
