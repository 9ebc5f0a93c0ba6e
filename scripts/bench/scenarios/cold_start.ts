/**
 * Cold start: spawn to the first `server/discover` response, against the
 * runtime's empty start (`node -e 0`, `deno eval 0`); and the same for a
 * bare SDK `McpServer` (`bare_server.mjs noop`), the floor: what loading the
 * SDK and answering discover costs on that runtime. On Node the floor loads
 * the SDK's files from `node_modules`, where the npm binary is one bundled file.
 *
 * @module
 */
import { type Context, ms, type Outcome } from "../context.ts";
import { smallCorpus } from "../corpus.ts";
import { interleave, perRuntime, pick } from "../measure.ts";
import { both, REFERENCE, type Row } from "../report.ts";
import type { RpcClient } from "../rpc.ts";

/** Row: the server's start over the empty start. */
export async function coldStart(ctx: Context): Promise<Outcome> {
  const root = await smallCorpus(ctx.sizes.smallFiles);
  const notes: string[] = [];
  const runs = await perRuntime(ctx, async (rt) => {
    const start = (spawn: () => RpcClient) => async () => {
      const t0 = performance.now();
      const client = spawn();
      await client.discover();
      const t = performance.now() - t0;
      await client.close();
      return t;
    };
    const r = await interleave(ctx.quick ? 5 : 15, [
      () => rt.empty(),
      start(() => rt.server(root)),
      start(() => rt.bare("noop")),
    ]);
    const [empty, server, bare] = r.medians;
    notes.push(
      `${rt.name} cold start ${ms(server)}, a bare SDK McpServer's ${ms(bare)}, ${rt.emptyText} ${ms(empty)}`,
    );
    return { server: server / empty, bare: bare / empty };
  });
  const row = (what: string, key: "server" | "bare", target: Row["target"]): Row => ({
    section: "start",
    what,
    baseline: "`node -e 0` (Deno column: `deno eval 0`)",
    unit: "×",
    values: pick(runs, key),
    target,
  });
  return {
    rows: [
      row("cold start: spawn → first server/discover response", "server", both(2.5, 3)),
      {
        ...row("the same for a bare SDK McpServer with one no-op tool (floor)", "bare", REFERENCE),
        // A floor on Deno, which loads the server as it loads the SDK, module by module. Node's server is one
        // bundled file and loads faster than this SDK from node_modules: there it is no floor.
        floorOn: ["deno"],
      },
    ],
    notes,
  };
}
