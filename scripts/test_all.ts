/**
 * Runs every test on both runtimes and prints one closing line,
 * `N passed, N failed`, summed over Deno and Node:
 *
 * 1. `deno test` (the suite drives the Deno server);
 * 2. the npm build (`scripts/build_npm.ts`, which installs `npm/`);
 * 3. `node --test` over the same suite compiled into `npm/.test/`
 *    (it drives `node npm/dist/cli.js`).
 *
 * Usage: deno task test
 */
const repo = new URL("..", import.meta.url).pathname;
const deno = Deno.execPath();

async function run(
  cmd: string,
  args: string[],
  env?: Record<string, string>,
): Promise<{ code: number; output: string }> {
  const child = new Deno.Command(cmd, { args, cwd: repo, env, stdout: "piped", stderr: "piped" }).spawn();
  let output = "";
  const decoder = new TextDecoder();
  const pump = async (stream: ReadableStream<Uint8Array>, sink: { write(p: Uint8Array): unknown }) => {
    for await (const chunk of stream) {
      output += decoder.decode(chunk, { stream: true });
      sink.write(chunk);
    }
  };
  const stdout = { write: (p: Uint8Array) => Deno.stdout.writeSync(p) };
  const stderr = { write: (p: Uint8Array) => Deno.stderr.writeSync(p) };
  await Promise.all([pump(child.stdout, stdout), pump(child.stderr, stderr)]);
  const { code } = await child.status;
  return { code, output };
}

// deno-lint-ignore no-control-regex
const plain = (text: string) => text.replace(/\x1b\[[0-9;]*m/g, "");

const denoRun = await run(deno, [
  "test",
  "--allow-read",
  "--allow-write",
  "--allow-run",
  "--allow-env",
  "tests/",
]);
const denoCounts = /ok \| (\d+) passed.*?\| (\d+) failed|FAILED \| (\d+) passed.*?\| (\d+) failed/.exec(
  plain(denoRun.output),
);
const denoPassed = Number(denoCounts?.[1] ?? denoCounts?.[3] ?? 0);
const denoFailed = Number(denoCounts?.[2] ?? denoCounts?.[4] ?? (denoRun.code === 0 ? 0 : 1));

const build = await run(deno, [
  "run",
  "--allow-read",
  "--allow-write",
  "--allow-run",
  "--allow-env",
  "scripts/build_npm.ts",
]);
let nodePassed = 0;
let nodeFailed = build.code === 0 ? 0 : 1;
let nodeFailures: string[] = build.code === 0 ? [] : ["the npm build failed (scripts/build_npm.ts)"];
if (build.code === 0) {
  // The Deno binary, for the Node suite's test of the npm command run by Deno.
  const nodeRun = await run("node", ["--test", "--test-concurrency=1", "npm/.test/tests/"], {
    PTC_FS_MCP_DENO: deno,
  });
  nodePassed = Number(/^# pass (\d+)/m.exec(nodeRun.output)?.[1] ?? 0);
  nodeFailed = Number(/^# fail (\d+)/m.exec(nodeRun.output)?.[1] ?? (nodeRun.code === 0 ? 0 : 1));
  if (nodeRun.code !== 0 && nodeFailed === 0) nodeFailed = 1;
  nodeFailures = nodeRun.output.split("\n").filter((line) => /^\s*not ok \d+ - /.test(line))
    .map((line) => line.trim());
}
if (denoRun.code !== 0 && denoFailed === 0) {
  console.log("deno test exited non-zero");
}

// What failed, again at the end: a log cut to its tail still names it. Deno lists its failures after its
// " FAILURES " heading, one test per line; Node marks each with "not ok".
const denoFailures =
  plain(denoRun.output).split("\n FAILURES \n")[1]?.split("\n").filter((line) => line.includes(" => ")) ?? [];
const failures = [...denoFailures.map((f) => `deno: ${f}`), ...nodeFailures.map((f) => `node: ${f}`)];
if (failures.length > 0) {
  // Deno's first errors too; Node prints each error under its "not ok" line.
  const denoErrors = plain(denoRun.output).split("\n ERRORS \n")[1]?.split("\n FAILURES \n")[0] ?? "";
  const shown = denoErrors.trim().split("\n").slice(0, 60).join("\n");
  if (shown) console.log(`\nDeno's errors (first 60 lines):\n${shown}`);
  console.log(`\nFailed:\n${failures.map((f) => `  ${f}`).join("\n")}`);
}

console.log(
  `\ndeno: ${denoPassed} passed, ${denoFailed} failed; node: ${nodePassed} passed, ${nodeFailed} failed`,
);
const failed = denoFailed + nodeFailed + (denoRun.code !== 0 && denoFailed === 0 ? 1 : 0);
console.log(`${denoPassed + nodePassed} passed, ${failed} failed`);
Deno.exit(failed === 0 ? 0 : 1);
