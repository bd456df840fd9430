import { loadEnvironment, type EnvironmentDecl } from './ast/environment.js';
import { formatPath, parsePath } from './ast/path.js';
import type { Diagnostic } from './diagnostics.js';
import { checkContextValues } from './eval/context.js';
import { Evaluator } from './eval/evaluator.js';
import { exportExpr } from './eval/export-expr.js';
import type { EscExpr } from './expr.js';
import type { EvalMode, EvalOptions, Rotation } from './eval/types.js';
import { mergedSchema, toJSONSchema, type JSONSchema } from './schema/schema.js';
import type { EscValue } from './value.js';

/**
 * An evaluated environment in ESC's checked shape (esc.Environment): the expressions of its definition, every
 * top-level value, the schema of the whole, and the execution context it was evaluated in.
 */
export interface EscEnvironment {
  exprs: Record<string, EscExpr>;
  properties: Record<string, EscValue>;
  schema: JSONSchema;
  executionContext: { properties: Record<string, EscValue>; schema: JSONSchema };
}

/** What checking or evaluating returns: the environment (absent when there was nothing to evaluate) and every problem. */
export interface EvalResult {
  environment?: EscEnvironment;
  diagnostics: Diagnostic[];
}

/** What rotating returns besides: one entry per rotator met, with the new state to write back. */
export interface RotateResult extends EvalResult {
  rotations: Rotation[];
}

/**
 * Checks an environment without opening providers: values that need a provider (or a ciphertext secret, unless
 * `showSecrets`) come back unknown. Use before saving a definition: it carries load and check diagnostics.
 */
export async function checkEnvironment(name: string, yamlText: string, options: EvalOptions = {}): Promise<EvalResult> {
  return withLoad(name, yamlText, (env) => checkDecl(name, env, options));
}

/** Evaluates an environment, opening providers and decrypting secrets (what `esc open` shows). */
export async function evalEnvironment(name: string, yamlText: string, options: EvalOptions = {}): Promise<EvalResult> {
  return withLoad(name, yamlText, (env) => evalDecl(name, env, options));
}

/** Evaluates an environment while asking its rotators (all, or those at `paths`, given as `values` paths) for new state. */
export async function rotateEnvironment(name: string, yamlText: string, options: EvalOptions & { paths?: string[] } = {}): Promise<RotateResult> {
  const loaded = loadEnvironment(name, yamlText);
  const result = await rotateDecl(name, loaded.env, options);
  return { ...result, diagnostics: [...loaded.diagnostics, ...result.diagnostics] };
}

async function withLoad(name: string, yamlText: string, next: (env: EnvironmentDecl | undefined) => Promise<EvalResult>): Promise<EvalResult> {
  const loaded = loadEnvironment(name, yamlText);
  const result = await next(loaded.env);
  return { ...result, diagnostics: [...loaded.diagnostics, ...result.diagnostics] };
}

/** {@link checkEnvironment} of an already parsed definition (diagnostics of checking only). */
export async function checkDecl(name: string, env: EnvironmentDecl | undefined, options: EvalOptions = {}): Promise<EvalResult> {
  return run({ validating: true, rotating: false }, name, env, options);
}

/** {@link evalEnvironment} of an already parsed definition (diagnostics of evaluation only). */
export async function evalDecl(name: string, env: EnvironmentDecl | undefined, options: EvalOptions = {}): Promise<EvalResult> {
  return run({ validating: false, rotating: false }, name, env, options);
}

/** {@link rotateEnvironment} of an already parsed definition. */
export async function rotateDecl(name: string, env: EnvironmentDecl | undefined, options: EvalOptions & { paths?: string[] } = {}): Promise<RotateResult> {
  const rotatePaths = new Set((options.paths ?? []).map((p) => `values${formatRotatePath(p)}`));
  return run({ validating: false, rotating: true, rotatePaths }, name, env, options);
}

async function run(mode: EvalMode, name: string, env: EnvironmentDecl | undefined, options: EvalOptions): Promise<RotateResult> {
  if (env === undefined || (env.values.length === 0 && env.imports.length === 0)) return { diagnostics: [], rotations: [] };
  const context = options.context ?? {};
  checkContextValues(context);
  const state = { mode, options, imports: new Map(), diagnostics: [] as Diagnostic[], rotations: [] as Rotation[] };
  const evaluator = new Evaluator(state, name, env, true, options.decrypt, { values: context, rootEnvironment: '', currentEnvironment: '' });
  const value = await evaluator.evaluate();
  const schema = value.base !== undefined ? mergedSchema(value.base.schema, value.schema) : value.schema;
  const exported = value.export(name);
  state.diagnostics.push(...exported.diagnostics);
  const properties = (exported.value.value ?? {}) as Record<string, EscValue>;
  const contextValue = evaluator.myContext.export(name);
  state.diagnostics.push(...contextValue.diagnostics);
  const rootExpr = exportExpr(evaluator.root, name);
  const environment: EscEnvironment = {
    exprs: rootExpr.object ?? {},
    properties,
    schema: toJSONSchema(schema),
    executionContext: { properties: (contextValue.value.value ?? {}) as Record<string, EscValue>, schema: toJSONSchema(evaluator.myContext.schema) },
  };
  return { environment, diagnostics: state.diagnostics, rotations: state.rotations };
}

/**
 * Reads a property path as Pulumi writes one (`a.b[0]["c d"]`) and prints it as a document path suffix
 * (`.a.b[0]["c d"]`), so it compares equal to the paths of the definition's nodes.
 */
export function formatRotatePath(path: string): string {
  const formatted = formatPath(parsePath(path));
  return formatted.startsWith('[') ? formatted : `.${formatted}`;
}
