import { randomBytes } from 'node:crypto';
import { PreconditionFailedError } from '../errors.js';
import type { HookStore } from '../../ports/hook-store.js';
import type { StackRecord } from '../../ports/stack-store.js';
import type { UpdateRecord } from '../../ports/update-store.js';
import type { Principal } from '../kernel/principal.js';
import { sendToHook, type HookRuntime } from './runtime.js';

/** What a gate answered; anything else (bad JSON, an error status, a timeout) is "no answer". */
interface GateAnswer {
  allow: boolean;
  message: string;
}

function parseAnswer(body: string | undefined): GateAnswer | undefined {
  if (body === undefined) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return undefined;
  }
  if (parsed === null || typeof parsed !== 'object') return undefined;
  const { allow, decision, message } = parsed as { allow?: unknown; decision?: unknown; message?: unknown };
  const verdict = typeof allow === 'boolean' ? allow : decision === 'allow' ? true : decision === 'deny' ? false : undefined;
  if (verdict === undefined) return undefined;
  return { allow: verdict, message: typeof message === 'string' ? message.slice(0, 1000) : '' };
}

/**
 * Asks every active gate of the stack (its own and its organization's) whether a non-dry-run update may start.
 * Called before the lease is taken, so a refused update never holds the stack. Gates run in parallel, each bounded
 * by the runtime's gate timeout (at most 10 s). Any deny refuses the update (412); a gate that errs or does not
 * answer refuses it too, unless it was added with fail-open.
 */
export async function runGates(
  hooks: HookStore,
  runtime: HookRuntime,
  stack: StackRecord,
  update: UpdateRecord,
  principal: Principal,
): Promise<void> {
  const gates = (await hooks.listForStack(stack.org, stack.id)).filter((hook) => hook.gate && hook.active);
  if (gates.length === 0) return;
  const payload = {
    event: 'update_gate',
    user: { name: principal.login, githubLogin: principal.login },
    organization: { name: stack.org, githubLogin: stack.org },
    projectName: stack.project,
    stackName: stack.stack,
    kind: update.kind,
    isPreview: false,
    updateId: update.id,
    ...(update.message !== undefined ? { message: update.message } : {}),
  };
  const answers = await Promise.all(
    gates.map(async (gate) => {
      const id = `gate-${randomBytes(8).toString('hex')}`;
      const result = await sendToHook(runtime, gate, { id, kind: 'update_gate', payload }, 'gate');
      return { gate, result, answer: result.ok ? parseAnswer(result.body) : undefined };
    }),
  );
  for (const { gate, answer } of answers) {
    if (answer && !answer.allow) {
      throw new PreconditionFailedError(`Gate ${gate.name} denied the update: ${answer.message || '(no message)'}`);
    }
  }
  for (const { gate, result, answer } of answers) {
    if (answer || gate.failOpen) continue;
    const reason = result.ok ? 'its answer was not {"allow": true|false, "message": "..."}' : (result.error ?? 'it failed');
    throw new PreconditionFailedError(
      `Gate ${gate.name} could not decide (${reason}), so the update was refused. Fix the gate and retry, or ` +
        `re-add the hook with --fail-open to let updates through when it cannot answer.`,
    );
  }
}
