/**
 * The error a provider's Construct or Call answers, kept whole: the status message and the input property errors
 * of its `pulumirpc.InputPropertiesError` details, which the engine reports as Pulumi's `errorToMessage` does.
 */
import type * as grpcTypes from '@grpc/grpc-js';
import { grpcMessage } from '../../rpc/grpc-util.js';
import { errproto, statusproto } from '../../rpc/proto.js';

/** One input property a component rejected. */
export interface InputPropertyError {
  propertyPath: string;
  reason: string;
}

/** Construct or Call failed inside the provider. */
export class ComponentCallError extends Error {
  override readonly name = 'ComponentCallError';
  constructor(message: string, readonly propertyErrors: readonly InputPropertyError[]) {
    super(message);
  }
}

/** The failure of a Construct or Call as its message and property errors. */
export function componentCallError(err: unknown): ComponentCallError {
  return new ComponentCallError(statusMessage(err), inputPropertyErrors(err));
}

function statusMessage(err: unknown): string {
  const details = (err as { details?: unknown }).details;
  return typeof details === 'string' ? details : grpcMessage(err);
}

function inputPropertyErrors(err: unknown): InputPropertyError[] {
  const raw = (err as { metadata?: grpcTypes.Metadata }).metadata?.get('grpc-status-details-bin')?.[0];
  if (!raw || typeof raw === 'string') return [];
  try {
    const status = statusproto.Status.deserializeBinary(new Uint8Array(raw));
    return status
      .getDetailsList()
      .filter((any) => any.getTypeUrl().endsWith('pulumirpc.InputPropertiesError'))
      .flatMap((any) => errproto.InputPropertiesError.deserializeBinary(any.getValue_asU8()).getErrorsList())
      .map((e) => ({ propertyPath: e.getPropertyPath(), reason: e.getReason() }));
  } catch {
    return [];
  }
}
