/** The `FsPort` contract (`_port_contract.ts`) on the Deno port; Deno only (the npm build leaves it out). */
import { portContract } from "./_port_contract.ts";
import { denoPort } from "../src/ports/deno.ts";

portContract("deno", denoPort);
