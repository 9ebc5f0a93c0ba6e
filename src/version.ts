/** The server's name, as advertised in `serverInfo`. */
export const SERVER_NAME = "ptc-fs-mcp";

/** The package version, written only here: the npm build copies it, a test checks that `deno.json` agrees. */
export const VERSION = "0.1.0";

/** The only MCP protocol revision this server speaks. */
export const PROTOCOL_VERSION = "2026-07-28";
