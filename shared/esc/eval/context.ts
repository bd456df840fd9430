import type { EscValue } from '../value.js';
import type { EscExecContext } from './types.js';

/** The name ESC gives an environment evaluated from bare YAML; its imports become their own roots. */
export const ANONYMOUS_ENVIRONMENT = '<yaml>';

/** The execution context for evaluating `envName` inside `parent` (ESC's CopyForEnv). */
export function contextForEnvironment(parent: EscExecContext, envName: string): EscExecContext {
  const root = parent.rootEnvironment === ANONYMOUS_ENVIRONMENT || parent.rootEnvironment === '' ? envName : parent.rootEnvironment;
  const name = (n: string): EscValue => ({ value: { name: { value: n } } });
  return {
    values: { ...parent.values, currentEnvironment: name(envName), rootEnvironment: name(root) },
    rootEnvironment: root,
    currentEnvironment: envName,
  };
}

/** Refuses context values that shadow the names evaluation sets itself. */
export function checkContextValues(values: Record<string, EscValue>): void {
  for (const reserved of ['currentEnvironment', 'rootEnvironment']) {
    if (reserved in values) throw new Error(`reserved context key: ${JSON.stringify(reserved)}`);
  }
}
