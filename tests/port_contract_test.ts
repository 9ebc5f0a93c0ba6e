/** The `FsPort` contract (`_port_contract.ts`) on the Node port, under either runtime. */
import { test } from "node:test";
import assert from "node:assert/strict";
import process from "node:process";
import { portContract } from "./_port_contract.ts";
import { RUNTIME } from "./_harness.ts";
import { nodePort } from "../src/ports/node.ts";

portContract("node", nodePort);

test("node: on Linux under Node, readDirPaced proves what it reads (through /proc/self/fd)", {
  skip: RUNTIME !== "node" && "Deno opens /proc/self/fd only under --allow-all",
}, () => {
  assert.equal(nodePort.pacedReadsProven === true, process.platform === "linux");
});
