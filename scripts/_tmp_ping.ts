import { InProcessServer } from "../tests/_inprocess.ts";
const server = await InProcessServer.start("/tmp/h12/ll", {});
await server.call("search_text", { query: "zzz", path: "small.txt" });
for (let r = 0; r < 4; r++) {
  const t0 = performance.now();
  let end = 0;
  const calls = [0, 1, 2].map(() =>
    server.call("search_text", { query: "NEEDLE-longline", path: "one.txt" }).then(() =>
      end = performance.now()
    )
  );
  await new Promise((r) => setTimeout(r, 20));
  const tp = performance.now();
  await server.request("tools/list", {});
  const pingAt = performance.now();
  await Promise.all(calls);
  console.log(
    `calls end ${(end - t0).toFixed(0)} ms, ping sent at ${(tp - t0).toFixed(0)} answered at ${
      (pingAt - t0).toFixed(0)
    }`,
  );
}
await server.close();
