/**
 * The benchmark's client for an MCP server over stdio: the test suite's
 * `ChildClient`, with the process measurements the benchmark needs:
 * resident memory read from `/proc/<pid>/status`, and the wall time of
 * shell baselines and of an empty runtime start.
 *
 * Deno refuses to read `/proc/<pid>/*` without `--allow-all`, so the status
 * file is read (and the peak reset through `clear_refs`) by a short `sh`
 * child instead; these happen only between measured phases.
 *
 * @module
 */
import { ChildClient, structured } from "../../tests/_client.ts";

const decoder = new TextDecoder();

/** How long one request may take before the client calls it a hang. */
export const CALL_TIMEOUT_MS = 900_000;

/** A spawned server (the suite's `ChildClient`) and what the scenarios ask of it. */
export class RpcClient extends ChildClient {
  /**
   * @param cmd The executable.
   * @param args Its arguments.
   * @param label Names the server in error messages (`node server`).
   * @param cwd The server's working directory.
   */
  constructor(cmd: string, args: string[], label: string, cwd?: string) {
    super(cmd, args, { label, cwd, timeoutMs: CALL_TIMEOUT_MS });
  }

  /** The process id, for its memory figures. */
  get pid(): number {
    return this.child.pid!;
  }

  /** Calls a tool and returns its structured content; throws on any error. */
  // deno-lint-ignore no-explicit-any
  async page(name: string, args: Record<string, unknown>): Promise<any> {
    return structured(await this.call(name, args), `${this.label}: ${name}`);
  }

  /** Sends `server/discover` and checks it answered. */
  async discover(): Promise<void> {
    const response = await this.request("server/discover");
    if (response.error || !response.result) {
      throw new Error(
        `${this.label}: discover failed: ${JSON.stringify(response.error)} ${this.stderr.slice(-300)}`,
      );
    }
  }

  /** Closes stdin and waits for the exit, killing the server after a grace period. */
  override close(timeoutMs = 30_000): Promise<number | null> {
    return super.close(timeoutMs).catch(() => null);
  }
}

/** Memory figures of a process, in KiB. */
export interface Memory {
  rssKiB: number;
  hwmKiB: number;
}

async function sh(script: string): Promise<string> {
  const out = await new Deno.Command("sh", { args: ["-c", script], stdout: "piped", stderr: "null" })
    .output();
  return decoder.decode(out.stdout);
}

/** Reads VmRSS and VmHWM of a process. */
export async function memoryOf(pid: number): Promise<Memory> {
  const status = await sh(`cat /proc/${pid}/status`);
  const field = (name: string) => Number(status.match(new RegExp(`^${name}:\\s+(\\d+)`, "m"))?.[1] ?? NaN);
  return { rssKiB: field("VmRSS"), hwmKiB: field("VmHWM") };
}

/** Resets the process's peak RSS (VmHWM) to its current RSS (`echo 5 > clear_refs`). */
export async function resetPeak(pid: number): Promise<void> {
  await sh(`echo 5 > /proc/${pid}/clear_refs`);
}

/** Runs a shell command in `cwd` and returns its wall time (ms) and stdout. */
export async function timeShell(script: string, cwd: string): Promise<{ ms: number; stdout: string }> {
  const t0 = performance.now();
  const out = await new Deno.Command("sh", {
    args: ["-c", script],
    cwd,
    stdout: "piped",
    stderr: "piped",
    env: { LC_ALL: "C" },
  }).output();
  const ms = performance.now() - t0;
  if (!out.success) throw new Error(`${script} failed: ${decoder.decode(out.stderr)}`);
  return { ms, stdout: decoder.decode(out.stdout) };
}

/** Spawns a command, waits for it to exit, returns the wall time in ms. */
export async function timeSpawn(cmd: string, args: string[]): Promise<number> {
  const t0 = performance.now();
  const out = await new Deno.Command(cmd, { args, stdout: "null", stderr: "null" }).output();
  const ms = performance.now() - t0;
  if (!out.success) throw new Error(`${cmd} ${args.join(" ")} failed`);
  return ms;
}
