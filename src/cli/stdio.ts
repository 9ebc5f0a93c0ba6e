/**
 * The binary's stdio transport: newline-delimited JSON-RPC. Unlike the SDK's, it answers every request it
 * received before it closes (end of input, SIGTERM, SIGINT), and it drops a line over `MAX_LINE_BYTES` whole,
 * as a malformed one, then serves the next.
 *
 * @module
 */
import { Buffer, isUtf8 } from "node:buffer";
import type { Readable, Writable } from "node:stream";
import { setImmediate } from "node:timers";
import { deserializeMessage } from "@modelcontextprotocol/server";
import { isObject, type JSONRPCMessage, type Transport } from "../server.ts";
import { ByteSink, encodeLine, type ResultLines } from "../result_line.ts";

const MAX_LINE_BYTES = 16 * 1024 * 1024;

/**
 * After SIGTERM or SIGINT, at most this much more input is taken in: far more than a runtime can have read but
 * not handed over (a pipe holds 64 KiB; Deno still had 157 KB of a batch written before the signal to hand
 * over), so a client that keeps writing cannot keep the server from stopping.
 */
export const MAX_INPUT_AFTER_STOP = 1024 * 1024;

/**
 * After SIGTERM or SIGINT, input is taken in until none came while the server waited this long, idle: requests
 * written before the signal may still wait in the pipe (on Deno a read of stdin came later than two input
 * turns: at a start-up signal one run in 20, and after a 64 KiB chunk whose requests kept the loop busy).
 */
export const QUIET_AFTER_STOP_MS = 20;

/**
 * After SIGTERM or SIGINT, the server waits idle for input this long in all, however often some came: a client
 * that keeps writing a little at a time is stopped soon, too. Reads of what was written before the signal
 * follow each other with far less waiting (time the loop spends answering does not count).
 */
export const MAX_WAIT_AFTER_STOP_MS = 250;

/**
 * After SIGTERM or SIGINT, at most this many more reads bring input in: a read takes what the pipe holds, so
 * what was written before the signal comes in a few (a 64 KiB pipe in 1–4), while a client that keeps writing
 * a little at a time makes one read a write, however quick (Deno reads each as it comes, without a wait).
 */
export const MAX_READS_AFTER_STOP = 256;

/** While input is quiet after a stop signal, the server waits in steps this long. */
export const QUIET_STEP_MS = 5;

/** How a `StdioTransport` reads. */
export interface StdioOptions {
  /**
   * Take in one chunk of input a loop turn: pause the input after each until the next immediate, so a client
   * that keeps writing cannot hold the loop. For Node, which reads up to 32 chunks of a stream in a row and
   * runs a signal's handler only after them (a flood held SIGTERM back for 3–8 s). Not for Deno's stdin: it
   * hands over a chunk a turn by itself, and paused with only an immediate pending, it let Deno's loop end.
   */
  readonly oneChunkATurn?: boolean;
}

/** A JSON-RPC transport over a pair of byte streams that answers everything it received before it closes. */
export class StdioTransport implements Transport {
  // Set by the server side.
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: Transport["onmessage"];
  /** Resolves once the transport closed: every received request was answered and written. */
  readonly closed: Promise<void>;

  readonly #input: Readable;
  readonly #output: Writable;
  readonly #results: ResultLines;
  readonly #warn: (line: string) => void;
  readonly #oneChunkATurn: boolean;
  #line: Buffer[] | null = []; // the start of the current line; null: it is over the cap, skip to its end
  #lineBytes = 0;
  #bytesIn = 0; // every byte of input taken in so far
  #draining = false; // a stop signal came: taking in what input is still arriving
  #drainBytesLeft = 0; // while draining: how many more bytes of input may be taken in
  #drainReadsLeft = 0; // and in how many more reads
  readonly #unanswered = new Map<string, number>(); // received requests by the JSON of their id (ids may repeat)
  #writes = 0; // writes handed to the output whose callback has not run
  #finishing = false;
  #isClosed = false;
  #resolveClosed!: () => void;
  #spare: ByteSink | undefined = new ByteSink(); // a line buffer no write in flight holds

  /** `results`: what the server recorded, by request id; `warn`: where a one-line diagnostic goes. */
  constructor(
    input: Readable,
    output: Writable,
    results: ResultLines,
    warn: (line: string) => void,
    options: StdioOptions = {},
  ) {
    this.#input = input;
    this.#output = output;
    this.#results = results;
    this.#warn = warn;
    this.#oneChunkATurn = options.oneChunkATurn ?? false;
    this.closed = new Promise((resolve) => (this.#resolveClosed = resolve));
  }

  /** Starts reading. */
  start(): Promise<void> {
    this.#input.on("data", this.#onData);
    this.#input.on("end", this.#onEnd);
    this.#input.on("error", this.#onStreamError);
    this.#output.on("error", this.#onStreamError); // a reader gone away: nothing more can be answered
    return Promise.resolve();
  }

  /** Stops reading, answers what was received, then closes: at the end of input, SIGTERM or SIGINT. */
  readonly finish = (): void => {
    if (this.#finishing) return;
    this.#finishing = true;
    this.#input.off("data", this.#onData);
    this.#input.pause();
    this.#closeWhenAnswered();
  };

  /**
   * At SIGTERM or SIGINT: takes in the input that is still arriving, an input turn (`turn`) at a time while it
   * keeps arriving, then finishes as at the end of input. A runtime may have read requests that it has not
   * handed over yet when the signal arrives (Deno: a read's chunk waits for the next turn of its loop); each
   * was received, so each is answered. Bounded by `MAX_INPUT_AFTER_STOP` bytes, `MAX_READS_AFTER_STOP` reads
   * and `MAX_WAIT_AFTER_STOP_MS` of waiting. Signals after the first are the same stop: a signal cannot tell
   * when it was sent (Deno hands over those that came while it started only once the server is up, and a busy
   * loop hands over signals sent together turns apart, while what was written before them still arrives).
   */
  readonly finishAfterInput = async (turn: () => Promise<void>): Promise<void> => {
    if (this.#draining || this.#finishing) return;
    this.#draining = true;
    this.#drainBytesLeft = MAX_INPUT_AFTER_STOP;
    this.#drainReadsLeft = MAX_READS_AFTER_STOP;
    // Until two turns in a row bring none (on Deno a turn's timer may fire before a read that completed), then
    // waits, while none comes, for `QUIET_AFTER_STOP_MS` in all: time the loop spends answering does not count,
    // since a runtime may read the next chunk only once the last one was handed over. Input that came while it
    // waited starts the quiet window again.
    let seen = this.#bytesIn;
    for (let idle = 0, quiet = 0, waited = 0; !this.#finishing;) {
      await turn();
      if (this.#bytesIn !== seen) {
        seen = this.#bytesIn;
        idle = 0;
        quiet = 0;
      } else if (++idle >= 2) {
        if (quiet >= QUIET_AFTER_STOP_MS || waited >= MAX_WAIT_AFTER_STOP_MS) break;
        await new Promise((resolve) => setTimeout(resolve, QUIET_STEP_MS));
        quiet += QUIET_STEP_MS;
        waited += QUIET_STEP_MS;
      }
    }
    this.finish();
  };

  /** Writes one message as a line. */
  send(message: JSONRPCMessage): Promise<void> {
    if (this.#isClosed) return Promise.reject(new Error("the stdio transport is closed"));
    const sink = this.#spare ?? new ByteSink();
    this.#spare = undefined;
    sink.clear();
    const id = "id" in message && !("method" in message) ? message.id : undefined;
    encodeLine(message, sink, id === undefined ? undefined : this.#results.take(message));
    this.#writes++;
    return new Promise((resolve, reject) => {
      this.#output.write(sink.view(), (error) => {
        this.#spare = sink;
        this.#writes--;
        if (id !== undefined) this.#settle(id);
        this.#closeWhenAnswered();
        if (error) reject(error);
        else resolve();
      });
    });
  }

  /** Closes at once: stops reading and tells the server side. */
  close(): Promise<void> {
    if (!this.#isClosed) {
      this.#isClosed = true;
      this.#finishing = true;
      this.#input.off("data", this.#onData);
      this.#input.off("end", this.#onEnd);
      this.#input.off("error", this.#onStreamError);
      this.#input.pause();
      this.onclose?.();
      this.#resolveClosed();
    }
    return Promise.resolve();
  }

  #closeWhenAnswered(): void {
    if (this.#finishing && this.#unanswered.size === 0 && this.#writes === 0) void this.close();
  }

  /** The end of input: a last line without its newline is still a whole message. */
  readonly #onEnd = (): void => {
    if (!this.#finishing && this.#line && this.#lineBytes > 0) this.#receive(Buffer.concat(this.#line));
    this.finish();
  };

  readonly #onStreamError = (error: Error): void => {
    this.onerror?.(error);
    this.finish();
  };

  readonly #onData = (chunk: Buffer): void => {
    this.#take(chunk);
    if (!this.#oneChunkATurn || this.#finishing) return;
    this.#input.pause();
    setImmediate(this.#resume);
  };

  readonly #resume = (): void => {
    if (!this.#finishing) this.#input.resume();
  };

  /** Takes in a chunk of input: its whole lines are received, the rest begins the next line. */
  #take(chunk: Buffer): void {
    if (this.#draining) {
      // Past a bound the input stops at once, not at the drain's next turn: Node reads up to 32 chunks in one.
      if (this.#drainReadsLeft === 0 || chunk.length > this.#drainBytesLeft) {
        this.finish();
        return;
      }
      this.#drainReadsLeft--;
      this.#drainBytesLeft -= chunk.length;
    }
    this.#bytesIn += chunk.length;
    for (let at = 0; at < chunk.length;) {
      const newline = chunk.indexOf(0x0a, at); // "\n"
      const end = newline < 0 ? chunk.length : newline;
      this.#lineBytes += end - at;
      if (this.#line && this.#lineBytes > MAX_LINE_BYTES) {
        this.#line = null;
        this.#warn(`dropped a message longer than ${MAX_LINE_BYTES} bytes; it gets no answer`);
      }
      this.#line?.push(chunk.subarray(at, end));
      if (newline < 0) return;
      const line = this.#line && Buffer.concat(this.#line);
      this.#line = [];
      this.#lineBytes = 0;
      at = newline + 1;
      if (line) this.#receive(line);
    }
  }

  #receive(line: Buffer): void {
    // JSON text is UTF-8: a byte that is not would be decoded as U+FFFD, a character the client never sent.
    if (!isUtf8(line)) return void this.#refuse(undefined, -32700, "Parse error: the line is not UTF-8");
    const text = line.toString("utf8").replace(/\r$/, "");
    if (text.trim() === "") return;
    let message: JSONRPCMessage;
    try {
      message = deserializeMessage(text);
    } catch (error) {
      // JSON-RPC's answers to a line that is not JSON, or not one request, response or notification.
      if (error instanceof SyntaxError) {
        return void this.#refuse(undefined, -32700, "Parse error: the line is not JSON");
      }
      const value: unknown = JSON.parse(text);
      const request = requestOf(value);
      if (request === null) {
        return void this.#refuse(idOf(value), -32600, `Invalid request: ${notRequest(value)}`);
      }
      const problem = request.method === "initialize" ? null : paramsProblem(request);
      if (problem !== null) {
        // A request whose params are wrong is answered as such; a notification gets no answer.
        if (request.id !== undefined) void this.#refuse(request.id, -32602, `Invalid params: ${problem}`);
        return;
      }
      message = request; // with its other members left out; `initialize` goes on to be refused as such
    }
    if ("method" in message) {
      if ("id" in message) {
        const key = JSON.stringify(message.id);
        this.#unanswered.set(key, (this.#unanswered.get(key) ?? 0) + 1);
      } else if (message.method === "notifications/cancelled") {
        // A cancelled request is never answered: stop waiting for it, and drop what it recorded.
        const id = (message.params as { requestId?: string | number } | undefined)?.requestId;
        if (id !== undefined) {
          this.#settle(id);
          this.#results.drop(id);
        }
      }
    }
    this.onmessage?.(message);
  }

  /** Answers an error; without an `id` when the line had none usable (the MCP schema has no `null` id). */
  #refuse(id: string | number | undefined, code: number, message: string): Promise<void> {
    const error = { jsonrpc: "2.0", ...(id !== undefined && { id }), error: { code, message } };
    return this.send(error as JSONRPCMessage).catch(() => {});
  }

  #settle(id: string | number): void {
    const key = JSON.stringify(id);
    const count = this.#unanswered.get(key) ?? 0;
    if (count > 1) this.#unanswered.set(key, count - 1);
    else this.#unanswered.delete(key);
  }
}

type Request = JSONRPCMessage & { method: string; id?: string | number; params?: unknown };

/**
 * A request or notification as JSON-RPC 2.0 and the MCP schema allow it: `jsonrpc`, `method`, an `id` that is
 * a string or an integer, and `params`, with any other member left out (the SDK's parser refuses them);
 * `null` for anything else.
 */
function requestOf(value: unknown): Request | null {
  if (!isObject(value) || value.jsonrpc !== "2.0" || typeof value.method !== "string") return null;
  const { jsonrpc, method, id, params } = value;
  if ("id" in value && typeof id !== "string" && !Number.isSafeInteger(id)) return null;
  return { jsonrpc, method, ...("id" in value && { id }), ...("params" in value && { params }) } as Request;
}

/** What is wrong with a request's params, or `null` when the SDK's parser takes it as it is. */
function paramsProblem(request: Request): string | null {
  try {
    deserializeMessage(JSON.stringify(request));
    return null;
  } catch (error) {
    if (error instanceof RangeError) return "params are nested too deeply"; // past the engine's stack
    const { params } = request;
    if (!isObject(params)) return "params must be an object";
    if (params._meta !== undefined && !isObject(params._meta)) return "params._meta must be an object";
    return "a member of params._meta has the wrong type (progressToken: a string or a number)";
  }
}

/** Why a JSON value is not one request or notification, for the refusal's text. */
function notRequest(value: unknown): string {
  if (Array.isArray(value)) return "batches are not supported; send one message per line";
  if (!isObject(value) || value.jsonrpc !== "2.0") return 'not a JSON-RPC 2.0 message (jsonrpc: "2.0")';
  if (typeof value.method !== "string") return "method must be a string";
  return "id must be a string or an integer";
}

/** The id of a value that is no valid message, when it has one the MCP schema allows. */
function idOf(value: unknown): string | number | undefined {
  const id = isObject(value) ? value.id : undefined;
  return typeof id === "string" || Number.isSafeInteger(id) ? id as string | number : undefined;
}
