import type { EscEnvironment } from './environment.js';
import { toEscString, type EscValue } from './value.js';

function objectAt(env: EscEnvironment, key: string): Record<string, EscValue> | undefined {
  const v = env.properties[key]?.value;
  return v !== null && v !== undefined && typeof v === 'object' && !Array.isArray(v) ? v : undefined;
}

function scalarStrings(obj: Record<string, EscValue> | undefined): Record<string, EscValue> {
  const out: Record<string, EscValue> = {};
  for (const [k, v] of Object.entries(obj ?? {})) {
    if (v.value !== null && typeof v.value === 'object') continue;
    out[k] = v.secret ? { value: toEscString(v, false), secret: true } : { value: toEscString(v, false) };
  }
  return out;
}

/** The stack configuration an environment supplies: the top-level `pulumiConfig` object, values kept (secrets stay marked). */
export function pulumiConfig(env: EscEnvironment): Record<string, EscValue> {
  return objectAt(env, 'pulumiConfig') ?? {};
}

/**
 * The environment variables an environment exports: each scalar of the top-level `environmentVariables` as a
 * string (booleans and numbers printed, null empty); lists and objects are left out, as ESC does.
 */
export function environmentVariables(env: EscEnvironment): Record<string, EscValue> {
  return scalarStrings(objectAt(env, 'environmentVariables'));
}

/** The temporary files an environment asks for: variable name → file content, from the scalars of the top-level `files`. */
export function files(env: EscEnvironment): Record<string, EscValue> {
  return scalarStrings(objectAt(env, 'files'));
}
