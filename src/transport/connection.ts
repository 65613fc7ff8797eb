import type { SizedBody } from "./sized-body.ts";

/** What the socket handlers tell the request a connection is serving (http1-exchange.ts). */
export interface ExchangeEvents {
  receive(data: Buffer): void;
  /** The connection closed, or the server half-closed it. */
  closed(error?: unknown): void;
  failed(error: unknown): void;
}

/** What the socket handlers need to reach the request the connection is serving. */
export interface Connection {
  socket: Bun.Socket<Connection> | undefined;
  origin: string;
  /** The exchange in progress, if any. */
  exchange: ExchangeEvents | undefined;
  /** Whether it answered before: a reused connection the server closed meanwhile may be retried once. */
  reused: boolean;
  closed: boolean;
  /** Bytes waiting for `drain`. */
  pending: Uint8Array | undefined;
  /** Whether a streamed request body is still being written: the connection cannot be reused before it ends. */
  sending?: boolean;
  /** Resumes the body's writer once `pending` is written, or the connection closed. */
  drained?: (() => void) | undefined;
}

export function abortError(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException("The operation was aborted.", "AbortError");
}

/** A reused connection that closed before any byte of the answer: safe to send again once. */
export class StaleConnection extends Error {
  constructor(cause: unknown) {
    super("stale keep-alive connection", { cause });
  }
}

/** Lets the body's writer go on: its bytes were written, or they never will be (the connection closed). */
export function wake(connection: Connection): void {
  const drained = connection.drained;
  connection.drained = undefined;
  drained?.();
}

/**
 * Writes a request's head, then its body chunk by chunk, each written whole (waiting for the socket to
 * drain) before the next is read. Stops, closing the body's reader, once the connection no longer
 * serves this exchange: the answer came and ended first, the request was aborted, the socket closed.
 * Rejects only when the body cannot be read.
 */
export async function writeStreamed(connection: Connection, head: string, body: SizedBody): Promise<void> {
  const exchange = connection.exchange;
  const ours = () => connection.exchange === exchange && !connection.closed;
  connection.sending = true;
  try {
    await writeWhole(connection, Buffer.from(head, "latin1"));
    for await (const chunk of body.chunks()) {
      if (!ours()) return;
      await writeWhole(connection, chunk);
    }
  } finally {
    connection.sending = false;
  }
}

/** Writes what the socket takes now; the rest waits in `pending` for `drain`. True when all of it was written. */
export function writeNow(connection: Connection, data: string | Uint8Array): boolean {
  const written = connection.socket!.write(data);
  if (written >= (typeof data === "string" ? Buffer.byteLength(data) : data.byteLength)) return true;
  const bytes = typeof data === "string" ? Buffer.from(data) : data;
  connection.pending = bytes.subarray(Math.max(0, written));
  return false;
}

async function writeWhole(connection: Connection, bytes: Uint8Array): Promise<void> {
  if (!connection.socket || connection.closed || writeNow(connection, bytes)) return;
  await new Promise<void>((resolve) => (connection.drained = resolve));
}
