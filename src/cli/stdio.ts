/**
 * The binary's stdio transport: newline-delimited JSON-RPC, written here
 * rather than taken from the SDK for two reasons.
 *
 * - **No reply is lost at shutdown.** The SDK's transport closes the
 *   connection when stdin ends, which aborts every request in flight. This
 *   one counts requests not answered yet; `finish()` (end of input, SIGTERM,
 *   SIGINT) stops reading, and it closes once every one was answered and written.
 * - **A bounded line.** A stdin line over `MAX_LINE_BYTES` is dropped whole,
 *   as a malformed one is, and the next is served; the SDK's reader would
 *   close the connection.
 *
 * Lines are parsed by the SDK's `deserializeMessage`; answers are written by
 * `encodeLine`, from the result the server recorded in the shared `ResultLines`.
 *
 * @module
 */
import { Buffer } from "node:buffer";
import type { Readable, Writable } from "node:stream";
import { deserializeMessage } from "@modelcontextprotocol/server";
import type { JSONRPCMessage, Transport } from "../version_gate.ts";
import { ByteSink, encodeLine, type ResultLines } from "../result_line.ts";

const MAX_LINE_BYTES = 16 * 1024 * 1024;

const NEWLINE = 0x0a;

/** A JSON-RPC transport over a pair of byte streams that answers everything it received before it closes. */
export class StdioTransport implements Transport {
  /** Set by the server side. */
  onclose?: () => void;
  /** Set by the server side. */
  onerror?: (error: Error) => void;
  /** Set by the server side. */
  onmessage?: Transport["onmessage"];
  /** Resolves once the transport closed: every received request was answered and written. */
  readonly closed: Promise<void>;

  readonly #input: Readable;
  readonly #output: Writable;
  readonly #results: ResultLines | undefined;
  #line: Buffer[] = []; // the start of the current line
  #lineBytes = 0;
  #dropping = false; // the current line is over the cap: skip to its end
  readonly #unanswered = new Map<string, number>(); // received requests by the JSON of their id (ids may repeat)
  #writes = 0; // writes handed to the output whose callback has not run
  #finishing = false;
  #isClosed = false;
  #resolveClosed!: () => void;
  #spare: ByteSink | undefined = new ByteSink(); // a line buffer no write in flight holds

  /** @param results What the server recorded, by request id (none: every line is plain JSON). */
  constructor(input: Readable, output: Writable, results?: ResultLines) {
    this.#input = input;
    this.#output = output;
    this.#results = results;
    this.closed = new Promise((resolve) => (this.#resolveClosed = resolve));
  }

  /** Starts reading. */
  start(): Promise<void> {
    this.#input.on("data", this.#onData);
    this.#input.on("end", this.finish);
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

  /** Writes one message as a line. */
  send(message: JSONRPCMessage): Promise<void> {
    if (this.#isClosed) return Promise.reject(new Error("the stdio transport is closed"));
    const sink = this.#spare ?? new ByteSink();
    this.#spare = undefined;
    sink.clear();
    const id = "id" in message && !("method" in message) ? message.id : undefined;
    encodeLine(message, sink, id === undefined ? undefined : this.#results?.take(id));
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
      this.#input.off("end", this.finish);
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

  readonly #onStreamError = (error: Error): void => {
    this.onerror?.(error);
    this.finish();
  };

  readonly #onData = (chunk: Buffer): void => {
    for (let at = 0; at < chunk.length;) {
      const newline = chunk.indexOf(NEWLINE, at);
      const end = newline < 0 ? chunk.length : newline;
      if (!this.#dropping) {
        this.#lineBytes += end - at;
        if (this.#lineBytes > MAX_LINE_BYTES) {
          this.#dropping = true;
          this.#line = [];
        } else this.#line.push(chunk.subarray(at, end));
      }
      if (newline < 0) return;
      const line = this.#dropping ? null : Buffer.concat(this.#line);
      this.#line = [];
      this.#lineBytes = 0;
      this.#dropping = false;
      at = newline + 1;
      if (line !== null) this.#receive(line);
    }
  };

  #receive(line: Buffer): void {
    let message: JSONRPCMessage;
    try {
      message = deserializeMessage(line.toString("utf8").replace(/\r$/, ""));
    } catch {
      return; // not a JSON-RPC message: skipped, as the SDK skips it
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
          this.#results?.take(id);
        }
      }
    }
    this.onmessage?.(message);
  }

  #settle(id: string | number): void {
    const key = JSON.stringify(id);
    const count = this.#unanswered.get(key);
    if (count === undefined) return;
    if (count > 1) this.#unanswered.set(key, count - 1);
    else this.#unanswered.delete(key);
  }
}
