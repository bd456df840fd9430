/**
 * Invoke transforms (`RegisterStackInvokeTransform`): before an invoke reaches its provider, each transform the
 * program registered gets the token, the arguments and the invoke options, in registration order, and what it
 * returns replaces them (Pulumi's `resmon.Invoke` and `wrapInvokeTransformCallback` in source_eval.go).
 */
import { emptyproto, resproto, type Struct } from '../rpc/proto.js';
import type { CallbackInvoker, CallbackRef } from './transforms.js';

type InvokeRequest = InstanceType<typeof resproto.ResourceInvokeRequest>;

/** The stack's invoke transforms. */
export class InvokeTransforms {
  private readonly transforms: CallbackRef[] = [];

  constructor(private readonly callbacks: CallbackInvoker) {}

  /** Handles RegisterStackInvokeTransform. */
  async register(cb: { getTarget(): string; getToken(): string }): Promise<InstanceType<typeof emptyproto.Empty>> {
    if (!cb.getTarget()) throw new Error('target must be specified');
    this.transforms.push({ target: cb.getTarget(), token: cb.getToken() });
    return new emptyproto.Empty();
  }

  /**
   * Runs every transform on an invoke, each seeing the previous one's result; mutates and returns `req` (its
   * arguments, provider, version and plugin download URL). A failing transform fails the invoke.
   */
  async apply(req: InvokeRequest): Promise<InvokeRequest> {
    for (const cb of this.transforms) {
      const options = new resproto.TransformInvokeOptions();
      options.setProvider(req.getProvider()).setVersion(req.getVersion()).setPluginDownloadUrl(req.getPlugindownloadurl());
      const treq = new resproto.TransformInvokeRequest().setToken(req.getTok()).setOptions(options);
      const args: Struct | undefined = req.getArgs();
      if (args) treq.setArgs(args);
      const res = resproto.TransformInvokeResponse.deserializeBinary(await this.callbacks.call(cb, treq.serializeBinary(), 60_000));
      const newArgs = res.getArgs();
      if (newArgs) req.setArgs(newArgs);
      const newOptions = res.getOptions();
      if (newOptions) req.setProvider(newOptions.getProvider()).setVersion(newOptions.getVersion()).setPlugindownloadurl(newOptions.getPluginDownloadUrl());
    }
    return req;
  }
}
