/** Small helpers around `@grpc/grpc-js` unary calls and errors. */
import type * as grpcTypes from '@grpc/grpc-js';
import { grpc } from './proto.js';

type UnaryMethod<Req, Res> = (
  req: Req,
  metadata: grpcTypes.Metadata,
  options: Partial<grpcTypes.CallOptions>,
  cb: (err: grpcTypes.ServiceError | null, res: Res) => void,
) => grpcTypes.ClientUnaryCall;

/**
 * Options of the engine's own gRPC endpoints on the per-resource path (the resource monitor it serves, the
 * provider channels it opens): messages up to 400 MB, and no channelz. Nothing here serves channelz, and its
 * bookkeeping (a tracker, counters and timestamps per call and per stream) is paid on every RegisterResource,
 * Log, Check and Create.
 */
export const ENGINE_GRPC_OPTIONS = {
  'grpc.max_receive_message_length': 400 * 1024 * 1024,
  'grpc.max_send_message_length': 400 * 1024 * 1024,
  'grpc.enable_channelz': 0,
} as const;

/** Calls a unary method with a deadline (none for `Infinity`); rejects with the gRPC `ServiceError`. */
export function callUnary<Req, Res>(method: UnaryMethod<Req, Res>, self: object, req: Req, timeoutMs: number): Promise<Res> {
  const options = Number.isFinite(timeoutMs) ? { deadline: Date.now() + timeoutMs } : {};
  return new Promise<Res>((resolve, reject) => {
    method.call(self, req, new grpc.Metadata(), options, (err, res) => (err ? reject(err) : resolve(res)));
  });
}

/** True for an error with the given gRPC status code. */
export function hasCode(err: unknown, code: grpcTypes.status): boolean {
  return typeof err === 'object' && err !== null && (err as { code?: unknown }).code === code;
}

/** The human part of a gRPC error. */
export function grpcMessage(err: unknown): string {
  if (typeof err === 'object' && err !== null && 'details' in err && typeof (err as { details: unknown }).details === 'string') {
    const e = err as grpcTypes.ServiceError;
    if (e.code === grpc.status.DEADLINE_EXCEEDED) return `deadline exceeded (${e.details})`;
    return e.details;
  }
  return err instanceof Error ? err.message : String(err);
}

/** A gRPC error to send back to a caller. */
export function grpcError(code: grpcTypes.status, message: string): grpcTypes.ServiceError {
  return Object.assign(new Error(message), { code, details: message, metadata: new grpc.Metadata() });
}
