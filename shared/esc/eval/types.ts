import type { Expr } from '../ast/expr.js';
import type { JSONSchema, Schema } from '../schema/schema.js';
import type { EscValue } from '../value.js';
import type { Diagnostic } from '../diagnostics.js';
import type { EvalExpr, Value } from './value.js';

/** What a provider or rotator sees of the evaluation: the context values and the environments being evaluated. */
export interface EscExecContext {
  values: Record<string, EscValue>;
  rootEnvironment: string;
  currentEnvironment: string;
}

/**
 * A dynamic provider, called by `fn::open::<name>` (or `fn::open: {provider, inputs}`). Its inputs are checked
 * against `inputSchema` first, with ESC's diagnostics; it is opened only when they hold no unknowns and the
 * environment is being evaluated (never when it is only checked).
 */
export interface EscProvider {
  inputSchema: JSONSchema;
  /** The schema of what `open` returns; `true` (anything) when left out. */
  outputSchema?: JSONSchema;
  open(inputs: Record<string, EscValue>, context: EscExecContext): Promise<EscValue>;
}

/** A rotator, called by `fn::rotate::<name>`: opened like a provider, and asked for new state when rotating. */
export interface EscRotator {
  inputSchema: JSONSchema;
  stateSchema: JSONSchema;
  outputSchema?: JSONSchema;
  open(inputs: Record<string, EscValue>, state: Record<string, EscValue> | undefined, context: EscExecContext): Promise<EscValue>;
  rotate(inputs: Record<string, EscValue>, state: Record<string, EscValue> | undefined, context: EscExecContext): Promise<EscValue>;
}

/** Decrypts the ciphertext of a `fn::secret: {ciphertext: …}` (the envelope already removed). */
export type Decrypt = (ciphertext: Uint8Array) => Promise<Uint8Array>;

/** An imported environment as the loader returns it: its definition and the decrypter for its secrets. */
export interface LoadedImport {
  yaml: string;
  decrypt?: Decrypt;
}

/**
 * Everything evaluation reaches outside the definition, all through callbacks: the evaluator does no I/O.
 * `loadImport` returns the definition of an imported environment (`undefined`: it does not exist; a thrown
 * error's message becomes the diagnostic).
 */
export interface EvalOptions {
  loadImport?: (name: string) => Promise<string | LoadedImport | undefined>;
  providers?: Record<string, EscProvider>;
  rotators?: Record<string, EscRotator>;
  decrypt?: Decrypt;
  /** Context values besides `currentEnvironment` and `rootEnvironment` (e.g. `pulumi.user`), read with `${context.…}`. */
  context?: Record<string, EscValue>;
  /** Check only: decrypt ciphertext secrets so their values show. */
  showSecrets?: boolean;
}

/** How a rotation went (ESC's RotationStatus). */
export type RotationStatus = 'succeeded' | 'failed' | 'not-evaluated';

/** New rotation state to write back into the definition at `docPath`. */
export interface RotationPatch {
  docPath: string;
  replacement: EscValue;
}

/** One `fn::rotate` met while rotating. */
export interface Rotation {
  path: string;
  status: RotationStatus;
  diagnostics?: Diagnostic[];
  patch?: RotationPatch;
}

/** What one evaluation does: check (no providers opened), evaluate, or rotate (rotators asked for new state). */
export interface EvalMode {
  validating: boolean;
  rotating: boolean;
  /** Rotation targets as document paths (`values.…`); empty means every rotator. */
  rotatePaths?: Set<string>;
}

/** An environment imported during one run: still being evaluated (an import of it is a cycle), or its value. */
export interface ImportedEnvironment {
  evaluating: boolean;
  value?: Value;
}

/** Shared by an environment and every environment it imports during one evaluation. */
export interface EvalRun {
  mode: EvalMode;
  options: EvalOptions;
  imports: Map<string, ImportedEnvironment>;
  diagnostics: Diagnostic[];
  rotations: Rotation[];
}

/**
 * What a builtin (`fn::…`) reaches of the evaluator that meets it. It is here, not in evaluator.ts, so that
 * builtins.ts and the evaluator that calls it do not import each other.
 */
export interface BuiltinHost {
  readonly run: EvalRun;
  readonly execContext: EscExecContext;
  readonly decrypt: Decrypt | undefined;
  readonly validating: boolean;
  readonly rotating: boolean;
  /** Ciphertext is decrypted when evaluating, and when checking with secrets shown. */
  decryptSecrets(): boolean;
  error(node: Expr | undefined, summary: string): void;
  evaluateExpr(x: EvalExpr, accept: Schema): Promise<Value>;
  evaluateTyped(x: EvalExpr, accept: Schema): Promise<{ value: Value; ok: boolean }>;
}

/** What resolving a `${…}` path reaches of the evaluator of the environment it is in. */
export interface AccessHost {
  readonly run: EvalRun;
  readonly root: EvalExpr;
  readonly myImports: Value;
  readonly myContext: Value;
  evaluateExpr(x: EvalExpr, accept: Schema): Promise<Value>;
  evaluateImport(node: Expr, name: string): Promise<Value | undefined>;
}
