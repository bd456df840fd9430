import type { EnvironmentDecl } from '../ast/environment.js';
import { loadEnvironment } from '../ast/environment.js';
import { exprError, type Expr, type StringExpr } from '../ast/expr.js';
import { errorAt, hasErrors } from '../diagnostics.js';
import { always, isRotateOnly, itemSchema, propertySchema, recordSchema, tupleSchema, type Schema } from '../schema/schema.js';
import { evaluatePropertyAccess } from './access.js';
import { evaluateBuiltin } from './builtins.js';
import { contextForEnvironment } from './context.js';
import { declare } from './declare.js';
import type { AccessHost, BuiltinHost, Decrypt, EscExecContext, EvalRun, ImportedEnvironment } from './types.js';
import { Validator } from './validate.js';
import { compareStrings, copyValue, newExpr, unexport, Value, type EvalExpr, type InterpolationSlots } from './value.js';

const RESERVED_KEYS = new Set(['imports', 'context', 'environments']);

/** Evaluates one environment definition (ESC's evalContext); imports evaluate in evaluators of their own. */
export class Evaluator implements BuiltinHost, AccessHost {
  readonly execContext: EscExecContext;
  /** `${context.…}`: the execution context's values. */
  myContext!: Value;
  /** `${imports.…}`: the environments imported directly, merged or not. */
  myImports!: Value;
  /** The environment's `values` as one object expression over the merged imports. */
  root!: EvalExpr;
  private base?: Value;

  constructor(
    readonly run: EvalRun,
    readonly name: string,
    private readonly env: EnvironmentDecl,
    readonly isRoot: boolean,
    readonly decrypt: Decrypt | undefined,
    parentContext: EscExecContext,
  ) {
    this.execContext = contextForEnvironment(parentContext, name);
  }

  get validating(): boolean {
    return this.run.mode.validating;
  }

  get rotating(): boolean {
    return this.run.mode.rotating && this.isRoot;
  }

  /** Ciphertext is decrypted when evaluating, and when checking with secrets shown. */
  decryptSecrets(): boolean {
    return !this.validating || this.run.options.showSecrets === true;
  }

  error(node: Expr | undefined, summary: string): void {
    this.run.diagnostics.push(exprError(node, summary));
  }

  /** Evaluates the environment: context, imports in order (each merged over the ones before), then `values`. */
  async evaluate(): Promise<Value> {
    const mine: ImportedEnvironment = { evaluating: true };
    this.run.imports.set(this.name, mine);
    try {
      const contextDef = declare(this.run.diagnostics, '', { kind: 'symbol', property: { accessors: [{ kind: 'name', name: 'context' }] } }, undefined);
      this.myContext = unexport({ value: this.execContext.values }, contextDef);
      await this.evaluateImports();
      const properties = new Map<string, EvalExpr>();
      this.root = newExpr(`<${this.name}>`, { kind: 'object', node: { kind: 'object', entries: [] }, properties }, always(), this.base);
      for (const entry of this.env.values) {
        const key = entry.key.value;
        if (RESERVED_KEYS.has(key)) this.error(entry.key, `${JSON.stringify(key)} is a reserved key`);
        else if (properties.has(key)) this.error(entry.key, `duplicate key ${JSON.stringify(key)}`);
        else properties.set(key, declare(this.run.diagnostics, key, entry.value, this.base?.property(entry.key, key)));
      }
      return await this.evaluateExpr(this.root, always());
    } finally {
      mine.evaluating = false;
    }
  }

  private async evaluateImports(): Promise<void> {
    const mine = new Map<string, Value>();
    for (const entry of this.env.imports) {
      if (entry.environment === undefined) continue;
      const name = entry.environment.value;
      const imported = await this.evaluateImport(entry.environment, name);
      if (imported === undefined) continue;
      mine.set(name, imported);
      if (entry.merge?.value ?? true) {
        const merged = copyValue(imported)!;
        merged.merge(this.base);
        this.base = merged;
      }
    }
    const schema = recordSchema(Object.fromEntries([...mine].map(([k, v]) => [k, v.schema])));
    const def = declare(this.run.diagnostics, '', { kind: 'symbol', property: { accessors: [{ kind: 'name', name: 'imports' }] } }, undefined);
    def.schema = schema;
    def.state = 'done';
    const value = new Value(def, schema);
    value.repr = mine;
    def.value = value;
    this.myImports = value;
  }

  /** Loads and evaluates an imported environment once per run; an import of one still being evaluated is a cycle. */
  async evaluateImport(node: StringExpr | Expr, name: string): Promise<Value | undefined> {
    const known = this.run.imports.get(name);
    if (known !== undefined) {
      if (known.evaluating) {
        this.run.diagnostics.push(errorAt(node.syntax?.range, `cyclic import of ${name}`, node.syntax?.path ?? ''));
        return undefined;
      }
      return known.value;
    }
    let loaded;
    try {
      loaded = await this.run.options.loadImport?.(name);
    } catch (err) {
      this.error(node, (err as Error).message);
      return undefined;
    }
    if (loaded === undefined) {
      this.error(node, `environment ${JSON.stringify(name)} not found`);
      return undefined;
    }
    const { yaml, decrypt } = typeof loaded === 'string' ? { yaml: loaded, decrypt: undefined } : loaded;
    const { env, diagnostics } = loadEnvironment(name, yaml);
    this.run.diagnostics.push(...diagnostics);
    if (env === undefined || hasErrors(diagnostics)) return undefined;
    const imported = new Evaluator(this.run, name, env, false, decrypt, this.execContext);
    const value = await imported.evaluate();
    this.run.imports.get(name)!.value = value;
    return value;
  }

  /** Evaluates an expression once; a second visit while it is being evaluated is a cyclic reference. */
  async evaluateExpr(x: EvalExpr, accept: Schema): Promise<Value> {
    if (x.state === 'done') return x.value!;
    if (x.state === 'evaluating') {
      this.error(x.repr.node, `cyclic reference to ${x.path}`);
      const v = new Value(x, always());
      v.unknown = true;
      return v;
    }
    x.state = 'evaluating';
    try {
      return await this.evaluateDeclared(x, accept);
    } finally {
      x.state = 'done';
    }
  }

  private async evaluateDeclared(x: EvalExpr, accept: Schema): Promise<Value> {
    // Rotate-only inputs are evaluated only when rotating or checking the root environment.
    if (isRotateOnly(accept) && ((!this.rotating && !this.validating) || !this.isRoot)) {
      const skipped = new Value(newExpr(x.path, { kind: 'missing', node: { kind: 'null' } }, always(), x.base), always());
      skipped.unknown = true;
      skipped.rotateOnly = true;
      x.value = skipped;
      return skipped;
    }
    if (x.base?.final) {
      this.run.diagnostics.push({ ...exprError(x.repr.node, 'cannot override final value'), severity: 'warning' });
      x.schema = x.base.schema;
      x.value = x.base;
      return x.base;
    }
    const val = await this.evaluateRepr(x, accept);
    if (isRotateOnly(accept)) val.rotateOnly = true;
    if (x.secret) val.secret = true;
    val.merge(x.base);
    x.schema = val.schema;
    x.value = val;
    return val;
  }

  private async evaluateRepr(x: EvalExpr, accept: Schema): Promise<Value> {
    const repr = x.repr;
    switch (repr.kind) {
      case 'missing': {
        const v = new Value(x, x.schema);
        v.unknown = true;
        return v;
      }
      case 'literal': {
        const v = new Value(x, x.schema);
        const node = repr.node;
        v.repr = node.kind === 'boolean' || node.kind === 'number' || node.kind === 'string' ? node.value : null;
        return v;
      }
      case 'interpolate':
        return this.evaluateInterpolate(x, repr.parts);
      case 'symbol':
        return evaluatePropertyAccess(this, x, repr.slots, accept);
      case 'array': {
        const v = new Value(x, always());
        const items: Value[] = [];
        for (const [i, element] of repr.elements.entries()) items.push(await this.evaluateExpr(element, itemSchema(accept, i)));
        v.repr = items;
        v.schema = tupleSchema(items.map((e) => e.schema));
        return v;
      }
      case 'object': {
        const v = new Value(x, always());
        const props = new Map<string, Value>();
        for (const k of [...repr.properties.keys()].sort(compareStrings)) {
          props.set(k, await this.evaluateExpr(repr.properties.get(k)!, propertySchema(accept, k)));
        }
        v.repr = props;
        v.schema = recordSchema(Object.fromEntries([...props].map(([k, p]) => [k, p.schema])));
        return v;
      }
      case 'builtin':
        return evaluateBuiltin(this, x, repr);
      case 'access':
        return x.value ?? new Value(x, x.schema);
    }
  }

  /** Evaluates an expression, then checks it against `accept`; false when it does not conform. */
  async evaluateTyped(x: EvalExpr, accept: Schema): Promise<{ value: Value; ok: boolean }> {
    const value = await this.evaluateExpr(x, accept);
    const validator = new Validator();
    const ok = validator.validateValue(value, accept);
    this.run.diagnostics.push(...validator.diagnostics);
    return { value, ok };
  }

  private async evaluateInterpolate(x: EvalExpr, parts: InterpolationSlots[]): Promise<Value> {
    const v = new Value(x, x.schema);
    let text = '';
    for (const part of parts) {
      text += part.text;
      if (part.slots === undefined) continue;
      const pv = await evaluatePropertyAccess(this, x, part.slots, always());
      const s = pv.toStringParts();
      v.unknown = v.containsUnknowns() || s.unknown;
      v.secret = v.containsSecrets() || s.secret;
      if (!s.unknown) text += s.text;
    }
    v.repr = v.unknown ? '[unknown]' : text;
    return v;
  }

}
