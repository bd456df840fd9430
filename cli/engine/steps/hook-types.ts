/**
 * The types of resource and error hooks shared by the steps that run them (resource-hooks.ts) and the program host
 * that registers them (program/resource-hooks.ts).
 */
import type { PropertyMap } from '../resource/properties.js';
import type { HookType, ResourceState } from '../state/deployment.js';

export type { HookType } from '../state/deployment.js';

/** Hook names by type, as the `hooks` resource option binds them and the state records them. */
export type HookBinding = Partial<Record<HookType, string[]>>;

/** The hook types in Go's map key order (sorted), which is the order a state's `resourceHooks` is written in. */
export const HOOK_TYPES: readonly HookType[] = ['AfterCreate', 'AfterDelete', 'AfterUpdate', 'BeforeCreate', 'BeforeDelete', 'BeforeUpdate', 'OnError'];

/** What a hook is told about the resource (`ResourceHookRequest`/`ErrorHookRequest`); absent members are not sent. */
export interface HookArgs {
  urn: string;
  id: string;
  type: string;
  /** The states the old and new resource options are read from. */
  oldState?: ResourceState;
  newState?: ResourceState;
  newInputs?: PropertyMap;
  oldInputs?: PropertyMap;
  newOutputs?: PropertyMap;
  oldOutputs?: PropertyMap;
}

/** A lifecycle hook the program registered (`RegisterResourceHook`). */
export interface RegisteredResourceHook {
  onDryRun: boolean;
  ignoreErrors: boolean;
  /** Runs the hook; rejects with the hook's own message when it failed. */
  call(args: HookArgs): Promise<void>;
}

/** An error hook the program registered (`RegisterErrorHook`). */
export interface RegisteredErrorHook {
  /** Runs the hook; true asks for the operation to be tried again. Rejects with the hook's own message. */
  call(args: HookArgs, failedOperation: string, errors: string[]): Promise<boolean>;
}

/** The hooks of this run's program, by name. */
export interface HookRegistry {
  resourceHook(name: string): RegisteredResourceHook | undefined;
  errorHook(name: string): RegisteredErrorHook | undefined;
}

/** What the steps need of the hooks (implemented by `StepHooks`). */
export interface StepHookRunner {
  /** Runs the `type` hooks `state` binds; rejects with the first failure (a before hook's fails its step). */
  run(type: HookType, state: ResourceState, args: HookArgs): Promise<void>;
  /** Runs after hooks; a failure fails the run but not the step. */
  after(type: 'AfterCreate' | 'AfterUpdate' | 'AfterDelete', state: ResourceState, args: HookArgs): Promise<void>;
  /** Calls `attempt` again while the `OnError` hooks of `state` ask for it. */
  withErrorHooks<T>(operation: 'create' | 'update' | 'delete', state: ResourceState, args: HookArgs, attempt: () => Promise<T>): Promise<T>;
}
