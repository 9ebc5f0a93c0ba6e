/**
 * The binary's stdio transport: the SDK's `StdioServerTransport` for
 * reading, with `send` writing each message as bytes built by `encodeLine`
 * (see `wire.ts`) instead of a string the stream must transcode. The bytes
 * are those the SDK would write; only the cost differs.
 *
 * @module
 */
import type { Readable, Writable } from "node:stream";
import { StdioServerTransport } from "@modelcontextprotocol/server/stdio";
import type { JSONRPCMessage } from "../version_gate.ts";
import { ByteSink, encodeLine } from "../wire.ts";

/** `StdioServerTransport` with byte-built lines. */
export class StdioLineTransport extends StdioServerTransport {
  readonly #stdout: Writable;
  #closed = false;
  /** A line buffer no pending write holds; a write in flight keeps its own. */
  #spare: ByteSink | undefined = new ByteSink();

  constructor(stdin: Readable, stdout: Writable, options?: { maxBufferSize?: number }) {
    super(stdin, stdout, options);
    this.#stdout = stdout;
  }

  override close(): Promise<void> {
    this.#closed = true;
    return super.close();
  }

  override send(message: JSONRPCMessage): Promise<void> {
    if (this.#closed) return Promise.reject(new Error("the stdio transport is closed"));
    const sink = this.#spare ?? new ByteSink();
    this.#spare = undefined;
    sink.clear();
    encodeLine(message, sink);
    return new Promise((resolve, reject) => {
      // Resolves once the stream has taken the bytes; stream errors also reach the SDK's listener.
      this.#stdout.write(sink.view(), (error) => {
        this.#spare = sink;
        if (error) reject(error);
        else resolve();
      });
    });
  }
}
