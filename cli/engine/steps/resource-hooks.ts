/**
 * Resource hooks and error hooks at the points Pulumi's steps run them (`CreateStep`, `UpdateStep` and `DeleteStep`
 * `Apply` in step.go, `Deployment.RunHooks`/`RunErrorHooks` in deployment.go, `withRetries` in retries.go): before
 * hooks fail the step, after hooks fail the run once the step's state is recorded, error hooks decide whether a failed
 * provider call is tried again. The hooks themselves are callbacks into the program (program/resource-hooks.ts).
 */
import type { EngineEvents } from '../display/events.js';
import { ProviderCallError } from '../plugins/providers/provider-client.js';
import { grpcMessage } from '../rpc/grpc-util.js';
import type { HookType, ResourceState } from '../state/deployment.js';
import type { HookArgs, HookRegistry, StepHookRunner } from './hook-types.js';
import { ShuttingDownError } from './step-types.js';

/** Pulumi's `maxErrorHookRetries`: an operation is attempted at most this many times. */
export const MAX_ERROR_HOOK_RETRIES = 100;

/** Raised when the error hooks asked for more attempts than Pulumi allows. */
export class MaxErrorHookRetriesError extends Error {
  override readonly name = 'MaxErrorHookRetriesError';
  constructor() {
    super('maximum number of error hook retries reached');
  }
}

function messageOf(err: unknown): string {
  if (err instanceof ProviderCallError && err.reason !== undefined) return err.reason;
  return grpcMessage(err);
}

/** The hook names of one type a state binds. */
export function hookNames(state: ResourceState | undefined, type: HookType): string[] {
  return state?.resourceHooks?.[type] ?? [];
}

/** Runs the hooks of one run's steps. */
export class StepHooks implements StepHookRunner {
  constructor(
    private readonly registry: HookRegistry | undefined,
    private readonly preview: boolean,
    private readonly events: EngineEvents,
    /** Reports a failure that does not undo the step (an after hook's): the run fails, and stops unless continuing. */
    private readonly failRun: (urn: string, err: Error) => void,
  ) {}

  /**
   * Runs the `type` hooks `state` binds, in order, as `Deployment.RunHooks`: in a preview only those registered with
   * `onDryRun`; a failing hook registered with `ignoreErrors` is a warning. Rejects with the first failure.
   */
  async run(type: HookType, state: ResourceState, args: HookArgs): Promise<void> {
    for (const name of hookNames(state, type)) {
      const hook = this.registry?.resourceHook(name);
      if (!hook) throw new Error(`hook "${name}" was not registered`);
      if (this.preview && !hook.onDryRun) continue;
      try {
        await hook.call(args);
      } catch (err) {
        if (hook.ignoreErrors) {
          this.events.diag?.({ severity: 'warning', urn: args.urn, message: `${type} hook "${name}" failed: ${messageOf(err)}` });
          continue;
        }
        throw new Error(`${type.startsWith('Before') ? 'before' : 'after'} hook "${name}" failed: ${messageOf(err)}`);
      }
    }
  }

  /**
   * Runs after hooks once the step's state is recorded: a failure is reported on the resource and fails the run (it
   * stops unless `--continue-on-error`), but the step itself stands, as the cloud resource changed.
   */
  async after(type: 'AfterCreate' | 'AfterUpdate' | 'AfterDelete', state: ResourceState, args: HookArgs): Promise<void> {
    try {
      await this.run(type, state, args);
    } catch (err) {
      this.failRun(args.urn, err as Error);
    }
  }

  /**
   * Calls `attempt` until it succeeds or the `OnError` hooks of `state` stop asking for another try (Pulumi's
   * `withRetries`): each hook gets the errors so far, newest first; any hook answering true retries. Without hooks
   * the first error stands. The 100th failure ends it with `maximum number of error hook retries reached`.
   */
  async withErrorHooks<T>(operation: 'create' | 'update' | 'delete', state: ResourceState, args: HookArgs, attempt: () => Promise<T>): Promise<T> {
    const failures: string[] = [];
    for (;;) {
      try {
        return await attempt();
      } catch (err) {
        if (err instanceof ShuttingDownError) throw err;
        failures.unshift(messageOf(err));
        if (failures.length >= MAX_ERROR_HOOK_RETRIES) {
          this.warn(args.urn, `maximum number of error hook retries (${MAX_ERROR_HOOK_RETRIES}) reached`);
          throw new MaxErrorHookRetriesError();
        }
        if (!(await this.askErrorHooks(operation, state, args, failures))) throw err;
        this.warn(args.urn, `retrying ${operation} due to on-error hook request (${failures.length}/${MAX_ERROR_HOOK_RETRIES})`);
      }
    }
  }

  private async askErrorHooks(operation: string, state: ResourceState, args: HookArgs, failures: string[]): Promise<boolean> {
    let retry = false;
    for (const name of hookNames(state, 'OnError')) {
      const hook = this.registry?.errorHook(name);
      if (!hook) throw new Error(`error hooks execution failed: error hook "${name}" was not registered`);
      try {
        retry = (await hook.call(args, operation, [...failures])) || retry;
      } catch (err) {
        throw new Error(`error hooks execution failed: error hook "${name}" failed: ${messageOf(err)}`);
      }
    }
    return retry;
  }

  private warn(urn: string, message: string): void {
    this.events.diag?.({ severity: 'warning', urn, message });
  }
}

/**
 * Resources of `base` whose delete hooks only a running program could serve: a destroy without the program refuses
 * them, as Pulumi's `newDestroySource` does.
 */
export function deleteHooksWithoutProgram(base: readonly ResourceState[]): { urn: string; hooks: string[] }[] {
  return base
    .map((r) => ({ urn: r.urn, hooks: [...hookNames(r, 'BeforeDelete'), ...hookNames(r, 'AfterDelete')] }))
    .filter((r) => r.hooks.length > 0);
}

/** Pulumi's message for each such resource, and the run's error. */
export const DELETE_HOOKS_WITHOUT_PROGRAM = {
  resource: (hooks: string[]) => `Resource has delete hooks registered, but the program is not running. Hooks: ${hooks.join(', ')}`,
  run: 'You must run with the `--run-program` flag to use delete hooks during destroy.',
};

/** The hook arguments of a delete: the old state's inputs and outputs only. */
export function deleteHookArgs(s: ResourceState): HookArgs {
  return { urn: s.urn, id: s.id ?? '', type: s.type, oldState: s, oldInputs: s.inputs ?? {}, oldOutputs: s.outputs ?? {} };
}

/** The hook arguments of a registration's create (no old state) or update, before the step: no new outputs yet. */
export function registrationHookArgs(state: ResourceState, old: ResourceState | undefined): HookArgs {
  const args: HookArgs = { urn: state.urn, id: old?.id ?? '', type: state.type, newState: state, newInputs: state.inputs ?? {} };
  return old ? { ...args, oldState: old, oldInputs: old.inputs ?? {}, oldOutputs: old.outputs ?? {} } : args;
}
