/**
 * The port `openRoot` uses when none is given. This file is the one the npm
 * build replaces, with `export { nodePort as defaultPort } from "./node.ts";`.
 *
 * @module
 */
export { denoPort as defaultPort } from "./deno.ts";
