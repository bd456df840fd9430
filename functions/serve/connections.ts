import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/**
 * What `serve` keeps per connection so that it can stop cleanly and answer malformed input honestly:
 * - requests in flight per socket, so a framing error (bytes after a body, where the next request should start) is
 *   answered only after the request that already runs has been answered, never instead of it;
 * - the request whose body is still being read, so a framing error inside that body (a bad chunk size) fails that
 *   request, which is then answered 400: node's parser reports it to the server only, never to the request's stream;
 * - a draining mode for shutdown: no new connections, responses tell keep-alive clients to close, idle
 *   connections are closed as soon as they become idle, and whatever is left is cut at a deadline.
 */
export interface ConnectionTracker {
  /**
   * Call when a request starts; the response's end is tracked from there. The promise rejects with a
   * `MalformedRequestError` if the request's own body turns out not to be well framed, and never resolves.
   */
  begin(request: IncomingMessage, response: ServerResponse): Promise<never>;
  /** True once `drain` has been called: responses should carry `Connection: close`. */
  readonly draining: boolean;
  /** Stops accepting, lets requests in flight finish, then resolves; connections left at `deadlineMs` are cut. */
  drain(deadlineMs: number): Promise<void>;
}

interface SocketState {
  inFlight: number;
  /** A parse error arrived while a request was running: answer it once that request has been answered. */
  pendingError?: Error;
  /** The request whose body is being read, and how to fail it; unset once that body has been read whole. */
  reading?: { request: IncomingMessage; fail(error: MalformedRequestError): void };
  /** The connection's framing error has been handed to a request, which answers it and closes the connection. */
  answered?: boolean;
}

/** The request's body is not well framed (node's parser stopped inside it): answered 400, then the connection closes. */
export class MalformedRequestError extends Error {
  /** What node's parser reported (`HPE_INVALID_CHUNK_SIZE`, …). */
  readonly parserCode: string;

  constructor(parserCode: string) {
    super(
      `Malformed HTTP request body (${parserCode}): its chunked framing could not be read, so the request was not ` +
        'run. Send each chunk as its size in hexadecimal, CRLF, the data, CRLF, and end with a zero-size chunk.',
    );
    this.name = 'MalformedRequestError';
    this.parserCode = parserCode;
  }
}

const MALFORMED_BODY = JSON.stringify({
  code: 400,
  message:
    'Malformed HTTP request: the connection carried bytes that do not form a request (for example a body longer ' +
    'than its Content-Length). Any request before them on this connection was answered; send each body with its ' +
    'exact Content-Length.',
});

function answerMalformed(socket: Socket, error: Error): void {
  const code = (error as NodeJS.ErrnoException).code;
  // Resets and timeouts have nobody left to answer.
  if (code === 'ECONNRESET' || code === 'ERR_HTTP_REQUEST_TIMEOUT' || !socket.writable) {
    socket.destroy();
    return;
  }
  const status = code === 'HPE_HEADER_OVERFLOW' ? '431 Request Header Fields Too Large' : '400 Bad Request';
  socket.end(
    `HTTP/1.1 ${status}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(MALFORMED_BODY)}\r\n` +
      `Connection: close\r\n\r\n${MALFORMED_BODY}`,
  );
}

/** Watches `server`'s connections: answers framing errors (its `clientError` listener) and drains on shutdown. */
export function trackConnections(server: Server): ConnectionTracker {
  const sockets = new WeakMap<Socket, SocketState>();
  const stateOf = (socket: Socket): SocketState => {
    let state = sockets.get(socket);
    if (!state) sockets.set(socket, (state = { inFlight: 0 }));
    return state;
  };
  let draining = false;

  server.on('clientError', (error: Error, socket: Socket) => {
    const state = stateOf(socket);
    // The parser, once failed, fails again on every later read of the same connection: one answer is enough.
    if (state.answered) return;
    // Bytes past a complete body belong to the next request, not to the one still being read (see pendingError).
    if (state.reading && !state.reading.request.complete) {
      state.answered = true;
      state.reading.fail(new MalformedRequestError((error as NodeJS.ErrnoException).code ?? 'HPE_UNKNOWN'));
    } else if (state.inFlight > 0) state.pendingError ??= error;
    else answerMalformed(socket, error);
  });

  return {
    get draining() {
      return draining;
    },
    begin(request, response) {
      const socket = request.socket;
      const state = stateOf(socket);
      state.inFlight += 1;
      const bodyFailed = new Promise<never>((_resolve, reject) => {
        if (request.complete) return;
        const reading = { request, fail: reject };
        const bodyRead = () => {
          if (state.reading === reading) state.reading = undefined;
        };
        state.reading = reading;
        request.once('end', bodyRead);
        response.once('close', bodyRead);
      });
      // A request that never reads its body (or reads it whole) leaves this promise unobserved.
      bodyFailed.catch(() => undefined);
      response.once('close', () => {
        state.inFlight -= 1;
        if (state.inFlight > 0) return;
        if (state.pendingError && !state.answered) answerMalformed(socket, state.pendingError);
        // The parser marks the connection idle after this event; close it on the next turn.
        else if (draining) setImmediate(() => server.closeIdleConnections());
      });
      return bodyFailed;
    },
    drain(deadlineMs) {
      draining = true;
      return new Promise<void>((resolve) => {
        const deadline = setTimeout(() => server.closeAllConnections(), deadlineMs);
        deadline.unref();
        server.close(() => {
          clearTimeout(deadline);
          resolve();
        });
        server.closeIdleConnections();
      });
    },
  };
}
