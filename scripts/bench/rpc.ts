/**
 * A raw JSON-RPC client for an MCP server over stdio (one JSON object per
 * line), with the process measurements the benchmark needs: spawn-to-first-
 * response time and resident memory read from `/proc/<pid>/status`.
 *
 * Deno refuses to read `/proc/<pid>/*` without `--allow-all`, so the status
 * file is read (and the peak reset through `clear_refs`) by a short `sh`
 * child instead; these happen only between measured phases.
 *
 * @module
 */

/** The `_meta` every 2026-07-28 request carries. */
export const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
  "io.modelcontextprotocol/clientInfo": { name: "ptc-fs-mcp-bench", version: "0" },
};

/** A JSON-RPC response as received. */
// deno-lint-ignore no-explicit-any
export type Response = { jsonrpc: "2.0"; id: number | null; result?: any; error?: any };

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** The last part of a process's stderr, as one line without terminal colours. */
function oneLine(text: string): string {
  // deno-lint-ignore no-control-regex
  const plain = text.replace(/\x1b\[[0-9;]*m/g, "").replace(/\s+/g, " ").trim();
  return plain.length > 300 ? `…${plain.slice(-300)}` : plain;
}

/** How long one request may take before the client calls it a hang. */
export const CALL_TIMEOUT_MS = 900_000;

/** A spawned server with a line-oriented JSON-RPC client. */
export class RpcClient {
  readonly child: Deno.ChildProcess;
  readonly label: string;
  stderr = "";
  #writer: WritableStreamDefaultWriter<Uint8Array>;
  #nextId = 1;
  #waiting = new Map<number, { resolve: (r: Response) => void; reject: (e: Error) => void }>();
  #closed = false;
  readonly #pumped: Promise<void>;

  constructor(cmd: string, args: string[], label: string, cwd?: string) {
    this.label = label;
    this.child = new Deno.Command(cmd, {
      args,
      cwd,
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    this.#writer = this.child.stdin.getWriter();
    this.#pumped = this.#pump();
    void this.#drainStderr();
  }

  get pid(): number {
    return this.child.pid;
  }

  async #drainStderr(): Promise<void> {
    for await (const chunk of this.child.stderr) {
      if (this.stderr.length < 64_000) this.stderr += decoder.decode(chunk);
    }
  }

  async #pump(): Promise<void> {
    let parts: Uint8Array[] = [];
    let partsLength = 0;
    for await (const chunk of this.child.stdout) {
      let start = 0;
      for (let nl = chunk.indexOf(10); nl >= 0; nl = chunk.indexOf(10, start)) {
        let line: Uint8Array;
        if (parts.length > 0) {
          parts.push(chunk.subarray(start, nl));
          line = new Uint8Array(partsLength + nl - start);
          let at = 0;
          for (const p of parts) {
            line.set(p, at);
            at += p.length;
          }
          parts = [];
          partsLength = 0;
        } else {
          line = chunk.subarray(start, nl);
        }
        this.#dispatch(line);
        start = nl + 1;
      }
      if (start < chunk.length) {
        const rest = chunk.slice(start);
        parts.push(rest);
        partsLength += rest.length;
      }
    }
    this.#closed = true;
    for (const { reject } of this.#waiting.values()) {
      reject(new Error(`${this.label}: server closed stdout; stderr: ${oneLine(this.stderr)}`));
    }
    this.#waiting.clear();
  }

  #dispatch(line: Uint8Array): void {
    let message: Response;
    try {
      message = JSON.parse(decoder.decode(line));
    } catch {
      return;
    }
    if (typeof message.id !== "number") return;
    const waiter = this.#waiting.get(message.id);
    if (waiter) {
      this.#waiting.delete(message.id);
      waiter.resolve(message);
    }
  }

  /** Sends a 2026-07-28 request and waits for its response. */
  request(method: string, params: Record<string, unknown> = {}): Promise<Response> {
    if (this.#closed) return Promise.reject(new Error(`${this.label}: server is gone`));
    const id = this.#nextId++;
    const line = JSON.stringify({ jsonrpc: "2.0", id, method, params: { ...params, _meta: META } });
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#waiting.delete(id);
        reject(new Error(`${this.label}: no response to ${method} within ${CALL_TIMEOUT_MS} ms`));
      }, CALL_TIMEOUT_MS);
      this.#waiting.set(id, {
        resolve: (r) => {
          clearTimeout(timer);
          resolve(r);
        },
        reject: (e) => {
          clearTimeout(timer);
          reject(e);
        },
      });
      this.#writer.write(encoder.encode(line + "\n")).catch(reject);
    });
  }

  /** Calls a tool and returns its structured content; throws on any error. */
  // deno-lint-ignore no-explicit-any
  async call(name: string, args: Record<string, unknown>): Promise<any> {
    const response = await this.request("tools/call", { name, arguments: args });
    if (response.error) throw new Error(`${this.label}: ${name}: ${JSON.stringify(response.error)}`);
    if (response.result.isError) {
      throw new Error(`${this.label}: ${name}: tool error: ${response.result.content?.[0]?.text}`);
    }
    return response.result.structuredContent ?? response.result;
  }

  /** Sends `server/discover` and checks it answered. */
  async discover(): Promise<void> {
    const response = await this.request("server/discover");
    if (response.error || !response.result) {
      throw new Error(
        `${this.label}: discover failed: ${JSON.stringify(response.error)} ${oneLine(this.stderr)}`,
      );
    }
  }

  /** Closes stdin and waits for the process to exit (killing it after a grace period). */
  async close(): Promise<void> {
    try {
      await this.#writer.close();
    } catch { /* already closed */ }
    const timer = setTimeout(() => {
      try {
        this.child.kill("SIGKILL");
      } catch { /* gone */ }
    }, 30_000);
    await this.child.status;
    clearTimeout(timer);
    await this.#pumped.catch(() => {});
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
