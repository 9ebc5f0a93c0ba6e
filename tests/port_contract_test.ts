/** The `FsPort` contract (`_port_contract.ts`) on the Node port, under either runtime. */
import { portContract } from "./_port_contract.ts";
import { nodePort } from "../src/ports/node.ts";

portContract("node", nodePort);
