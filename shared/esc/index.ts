/**
 * Pulumi ESC's environment language as a pure library: YAML → syntax (`ast/`) → evaluated values (`eval/`), with
 * provider schemas (`schema/`). It does no I/O: imports, providers, rotators and decryption are callbacks.
 */
export type { Diagnostic, Pos, Range, Severity } from './diagnostics.js';
export { hasErrors, sortDiagnostics } from './diagnostics.js';
export { loadEnvironment, type EnvironmentDecl, type ImportDecl, type ValueEntry } from './ast/environment.js';
export type { Expr } from './ast/expr.js';
export { parsePath } from './ast/path.js';
export type { EscAccessor, EscExpr, EscPropertyAccessor } from './expr.js';
export {
  checkDecl,
  checkEnvironment,
  evalDecl,
  evalEnvironment,
  formatRotatePath,
  rotateDecl,
  rotateEnvironment,
  type EscEnvironment,
  type EvalResult,
  type RotateResult,
} from './environment.js';
export { ANONYMOUS_ENVIRONMENT } from './eval/context.js';
export { decodeCiphertext, encodeCiphertext } from './eval/crypt.js';
export { applyValuePatches, decryptSecrets, encryptSecrets, redactSecrets, valueToSecretJSON, type Encrypt } from './eval/rewrite.js';
export type {
  Decrypt,
  EscExecContext,
  EscProvider,
  EscRotator,
  EvalOptions,
  LoadedImport,
  Rotation,
  RotationPatch,
  RotationStatus,
} from './eval/types.js';
export { environmentVariables, files, pulumiConfig } from './projections.js';
export type { JSONSchema } from './schema/schema.js';
export { escValue, goJSONString, goQuote, makeSecret, toEscString, toJSON, type EscValue, type JsonValue } from './value.js';
