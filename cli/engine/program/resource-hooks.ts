/**
 * The hooks a program registers (`RegisterResourceHook`, `RegisterErrorHook`), as Pulumi's resource monitor keeps
 * them (resource_hooks.go, source_eval.go): one name space for both kinds, each name once. Running one is a callback
 * into the program (`Callbacks.Invoke` with a `ResourceHookRequest` or an `ErrorHookRequest`).
 */
import { emptyproto, resproto } from '../rpc/proto.js';
import { toStruct, type PropertyMap } from '../resource/properties.js';
import { urnName } from '../resource/urn.js';
import type { HookArgs, HookRegistry, RegisteredErrorHook, RegisteredResourceHook } from '../steps/hook-types.js';
import { resourceOptionsOf } from './hook-options.js';
import { CallbackInvoker, type CallbackRef } from './transforms.js';

type ResourceHookRequest = InstanceType<typeof resproto.RegisterResourceHookRequest>;
type ErrorHookRequest = InstanceType<typeof resproto.RegisterErrorHookRequest>;

function structOf(m: PropertyMap | undefined) {
  return m === undefined ? undefined : toStruct(m);
}

/** The hooks of one run's program. */
export class ResourceHookRegistry implements HookRegistry {
  private readonly resourceHooks = new Map<string, RegisteredResourceHook>();
  private readonly errorHooks = new Map<string, RegisteredErrorHook>();
  private readonly callbacks = new CallbackInvoker();

  /** Handles RegisterResourceHook. */
  async registerResourceHook(req: ResourceHookRequest): Promise<InstanceType<typeof emptyproto.Empty>> {
    const cb = this.claim(req.getName(), req.getCallback());
    this.resourceHooks.set(req.getName(), {
      onDryRun: req.getOnDryRun(),
      ignoreErrors: req.getIgnoreErrors(),
      call: async (args) => {
        const r = new resproto.ResourceHookRequest();
        r.setUrn(args.urn).setId(args.id).setName(urnName(args.urn)).setType(args.type);
        r.setNewInputs(structOf(args.newInputs)).setOldInputs(structOf(args.oldInputs));
        r.setNewOutputs(structOf(args.newOutputs)).setOldOutputs(structOf(args.oldOutputs));
        setOptions(r, args);
        const res = resproto.ResourceHookResponse.deserializeBinary(await this.callbacks.call(cb, r.serializeBinary()));
        if (res.getError()) throw new Error(res.getError());
      },
    });
    return new emptyproto.Empty();
  }

  /** Handles RegisterErrorHook. */
  async registerErrorHook(req: ErrorHookRequest): Promise<InstanceType<typeof emptyproto.Empty>> {
    const cb = this.claim(req.getName(), req.getCallback());
    this.errorHooks.set(req.getName(), {
      call: async (args, failedOperation, errors) => {
        const r = new resproto.ErrorHookRequest();
        r.setUrn(args.urn).setId(args.id).setName(urnName(args.urn)).setType(args.type);
        r.setNewInputs(structOf(args.newInputs)).setOldInputs(structOf(args.oldInputs)).setOldOutputs(structOf(args.oldOutputs));
        r.setFailedOperation(failedOperation).setErrorsList(errors);
        setOptions(r, args);
        const res = resproto.ErrorHookResponse.deserializeBinary(await this.callbacks.call(cb, r.serializeBinary()));
        if (res.getError()) throw new Error(res.getError());
        return res.getRetry();
      },
    });
    return new emptyproto.Empty();
  }

  /** The lifecycle hook registered under `name`. */
  resourceHook(name: string): RegisteredResourceHook | undefined {
    return this.resourceHooks.get(name);
  }

  /** The error hook registered under `name`. */
  errorHook(name: string): RegisteredErrorHook | undefined {
    return this.errorHooks.get(name);
  }

  /** Closes the callback clients. */
  close(): void {
    this.callbacks.close();
  }

  /** Pulumi's checks of a registration: a name, not taken by a hook of either kind, and a callback to call. */
  private claim(name: string, callback: { getTarget(): string; getToken(): string } | undefined): CallbackRef {
    if (!name) throw new Error('resource hook name cannot be empty');
    if (this.resourceHooks.has(name) || this.errorHooks.has(name)) throw new Error(`resource hook already registered for name "${name}"`);
    if (!callback?.getTarget()) throw new Error(`resource hook "${name}" has no callback target`);
    return { target: callback.getTarget(), token: callback.getToken() };
  }
}

function setOptions(r: { setOldOptions(v?: InstanceType<typeof resproto.ResourceOptions>): unknown; setNewOptions(v?: InstanceType<typeof resproto.ResourceOptions>): unknown }, args: HookArgs): void {
  const oldOptions = resourceOptionsOf(args.oldState);
  const newOptions = resourceOptionsOf(args.newState);
  if (oldOptions) r.setOldOptions(oldOptions);
  if (newOptions) r.setNewOptions(newOptions);
}
