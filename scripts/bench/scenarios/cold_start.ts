/**
 * Cold start: spawn to the first `server/discover` response, against the
 * runtime's empty start (`node -e 0`, `deno eval 0`); and the same for a
 * bare SDK `McpServer` with one no-op tool (`bare_noop.mjs`), the floor: what
 * loading the SDK and answering discover costs on that runtime. On Deno it
 * is loaded module by module, as the server is; on Node, where the npm
 * binary is one bundled file, the floor is that bare server bundled the same
 * way (loaded from `node_modules`, it is shown for reference).
 *
 * @module
 */
import { type Context, ms, type Outcome } from "../context.ts";
import { smallCorpus } from "../corpus.ts";
import { interleaveNamed, perRuntime, pick } from "../measure.ts";
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
    const { bundledNoop } = rt;
    const { empty, server, bare, bundled } = await interleaveNamed(ctx.quick ? 5 : 15, {
      empty: () => rt.empty(),
      server: start(() => rt.server(root)),
      bare: start(() => rt.bare("noop")),
      bundled: bundledNoop && start(bundledNoop),
    }) as Record<"empty" | "server" | "bare", number> & { bundled?: number };
    const bundledText = bundled === undefined ? "" : ` (bundled ${ms(bundled)})`;
    notes.push(
      `${rt.name} cold start ${ms(server)}, a bare SDK McpServer's ${
        ms(bare)
      }${bundledText}, ${rt.emptyText} ${ms(empty)}`,
    );
    return { server: server / empty, bare: bare / empty, bundled: bundled && bundled / empty };
  });
  const row = (what: string, key: "server" | "bare" | "bundled", target: Row["target"]): Row => ({
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
      {
        ...row(
          "the same bare server bundled into one file as the npm binary is (floor)",
          "bundled",
          REFERENCE,
        ),
        floorOn: ["node"],
      },
    ],
    notes,
  };
}
