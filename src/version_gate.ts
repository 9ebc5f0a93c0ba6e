/**
 * The protocol gate. The SDK's stdio entry checks the version of the opening
 * message only; this transport wrapper checks every request, so another
 * revision or `initialize` is refused whenever it comes, before it reaches
 * the server, and the connection stays usable.
 *
 * @module
 */
import {
  CLIENT_CAPABILITIES_META_KEY,
  type JSONRPCMessage as SdkJSONRPCMessage,
  PROTOCOL_VERSION_META_KEY,
  ProtocolErrorCode,
  type Transport as SdkTransport,
  type TransportSendOptions as SdkTransportSendOptions,
} from "@modelcontextprotocol/server";
import { quoteArgument } from "./quote.ts";
import { PROTOCOL_VERSION } from "./version.ts";

/** The SDK's `Transport` interface, which `VersionGate` wraps and implements. */
export type Transport = SdkTransport;
/** A JSON-RPC message, as the SDK's transports carry it. */
export type JSONRPCMessage = SdkJSONRPCMessage;
/** The options of the SDK's `Transport.send`. */
export type TransportSendOptions = SdkTransportSendOptions;

type Refusal = { code: number; message: string; data?: unknown };

/** Why a request must not reach the server, or `null` when it may. */
function refusalFor(message: JSONRPCMessage): Refusal | null {
  if (!("method" in message) || !("id" in message)) return null; // notifications and responses pass
  const params = (message.params ?? {}) as Record<string, unknown>;
  const unsupported = (claim: unknown, initialize = false): Refusal => {
    const requested = typeof claim === "string" ? claim : "";
    // Both versions in the message: legacy clients and tools (SDK v1, the MCP Inspector) show it, not
    // `data`. A claim that is not a plain version string is quoted, so it cannot break the line.
    const shown = /^[\w.-]{1,64}$/.test(requested) ? requested : quoteArgument(requested);
    const why = initialize && requested === PROTOCOL_VERSION ? ", which has no initialize request" : "";
    return {
      code: ProtocolErrorCode.UnsupportedProtocolVersion,
      message: `Unsupported protocol version ${shown}: this server speaks only ${PROTOCOL_VERSION}${why}`,
      data: { supported: [PROTOCOL_VERSION], requested },
    };
  };
  const missing = (key: string) => ({
    code: ProtocolErrorCode.InvalidParams,
    message: `Missing params._meta["${key}"]`,
  });
  if (message.method === "initialize") return unsupported(params.protocolVersion, true);
  const meta = params._meta as Record<string, unknown> | undefined;
  const version = meta?.[PROTOCOL_VERSION_META_KEY];
  if (typeof version !== "string") return missing(PROTOCOL_VERSION_META_KEY);
  if (version !== PROTOCOL_VERSION) return unsupported(version);
  const capabilities = meta?.[CLIENT_CAPABILITIES_META_KEY];
  if (capabilities === null || typeof capabilities !== "object" || Array.isArray(capabilities)) {
    return missing(CLIENT_CAPABILITIES_META_KEY);
  }
  return null;
}

/** Wraps a transport so that every inbound request passes the protocol gate first. */
export class VersionGate implements Transport {
  /** Set by the server side. */
  onclose?: () => void;
  /** Set by the server side. */
  onerror?: (error: Error) => void;
  /** Set by the server side. */
  onmessage?: Transport["onmessage"];
  readonly #inner: Transport;

  /** Wraps `inner`; pass the gate, not `inner`, to the server. */
  constructor(inner: Transport) {
    this.#inner = inner;
  }

  /** Starts the inner transport, routing its messages through the gate. */
  start(): Promise<void> {
    this.#inner.onclose = () => this.onclose?.();
    this.#inner.onerror = (error) => this.onerror?.(error);
    this.#inner.onmessage = (message, extra) => {
      const refusal = refusalFor(message);
      if (refusal === null) return this.onmessage?.(message, extra);
      const id = (message as { id: string | number }).id;
      this.#inner.send({ jsonrpc: "2.0", id, error: refusal }).catch((error) => this.onerror?.(error));
    };
    return this.#inner.start();
  }

  /** Sends through the inner transport; an error's message as one line (the SDK's may span several). */
  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    const error = (message as { error?: { message?: unknown } }).error;
    if (typeof error?.message === "string" && /[\r\n]/.test(error.message)) {
      message = {
        ...message,
        error: { ...error, message: error.message.replace(/\s*[\r\n]+\s*/g, " ") },
      } as JSONRPCMessage;
    }
    return this.#inner.send(message, options);
  }

  /** Closes the inner transport. */
  close(): Promise<void> {
    return this.#inner.close();
  }
}
