import { exprError, type BuiltinExpr } from '../ast/expr.js';
import { joinKey } from '../ast/path.js';
import { always, arraySchema, compileSchema, fromJSONSchema, oneOfSchema, nullSchema, stringSchema, type Schema } from '../schema/schema.js';
import { escValue, goMarshalJSON, makeSecret, toJSON, type EscValue, type JsonValue } from '../value.js';
import { jsonSchemaSchema } from '../schema/json-schema.js';
import { decodeBase64, decodeCiphertext } from './crypt.js';
import type { BuiltinHost } from './types.js';
import { unexport, Value, type EvalExpr, type ExprRepr } from './value.js';

type BuiltinRepr = Extract<ExprRepr, { kind: 'builtin' }>;

const unknownValue = (x: EvalExpr, schema: Schema = x.schema): Value => {
  const v = new Value(x, schema);
  v.unknown = true;
  return v;
};

/** Evaluates a call of a builtin function with ESC's semantics: unknown in, unknown out; secret in, secret out. */
export async function evaluateBuiltin(e: BuiltinHost, x: EvalExpr, repr: BuiltinRepr): Promise<Value> {
  const node = repr.node as BuiltinExpr;
  const arg = (name: string): EvalExpr => repr.args[name]!;
  switch (node.kind) {
    case 'secret':
      return evaluateSecret(e, x, repr);
    case 'open':
      return evaluateOpen(e, x, repr);
    case 'rotate':
      return evaluateRotate(e, x, repr);
    case 'concat': {
      const { value: arrays, ok } = await e.evaluateTyped(arg('value'), arraySchema(arraySchema(always())));
      if (!ok) return unknownValue(x);
      const v = new Value(x, x.schema);
      v.combine(arrays);
      if (!v.unknown) v.repr = (arrays.repr as Value[]).flatMap((a) => a.repr as Value[]);
      return v;
    }
    case 'join':
    case 'split': {
      const delimiter = await e.evaluateTyped(arg('delimiter'), stringSchema());
      const operand = await e.evaluateTyped(arg('operand'), node.kind === 'join' ? arraySchema(stringSchema()) : stringSchema());
      if (!delimiter.ok || !operand.ok) return unknownValue(x);
      const v = new Value(x, x.schema);
      v.combine(delimiter.value, operand.value);
      if (v.unknown) return v;
      const sep = delimiter.value.repr as string;
      if (node.kind === 'join') {
        v.repr = (operand.value.repr as Value[]).map((s) => s.repr as string).join(sep);
      } else {
        v.repr = splitLikeGo(operand.value.repr as string, sep).map((part) => {
          const p = new Value(x, stringSchema());
          p.repr = part;
          return p;
        });
      }
      return v;
    }
    case 'fromBase64':
    case 'toBase64':
    case 'fromJSON': {
      const { value: str, ok } = await e.evaluateTyped(arg('value'), stringSchema());
      if (!ok) return unknownValue(x);
      const v = new Value(x, x.schema);
      v.combine(str);
      if (v.unknown) return v;
      const text = str.repr as string;
      if (node.kind === 'toBase64') {
        v.repr = Buffer.from(text, 'utf8').toString('base64');
        return v;
      }
      if (node.kind === 'fromBase64') {
        const decoded = decodeBase64(text);
        if (typeof decoded === 'string') {
          e.error(node, `decoding base64 string: ${decoded}`);
          return unknownValue(x);
        }
        v.repr = Buffer.from(decoded).toString('utf8');
        return v;
      }
      let parsed: JsonValue;
      try {
        parsed = JSON.parse(text) as JsonValue;
      } catch (err) {
        e.error(node, `decoding JSON string: ${(err as Error).message}`);
        return unknownValue(x);
      }
      const out = escValue(parsed);
      return unexport(v.secret ? makeSecret(out) : out, x);
    }
    case 'toJSON':
    case 'toString': {
      const value = await e.evaluateExpr(arg('value'), always());
      const v = new Value(x, x.schema);
      if (node.kind === 'toString') {
        const s = value.toStringParts();
        v.unknown = s.unknown;
        v.secret = s.secret;
        if (!s.unknown) v.repr = s.text;
        return v;
      }
      v.combine(value);
      if (!v.unknown) v.repr = goMarshalJSON(toJSON(exportValue(e, value), false));
      return v;
    }
    case 'final': {
      const value = await e.evaluateExpr(arg('value'), always());
      return derived(x, value, { final: true });
    }
    case 'validate':
      return evaluateValidate(e, x, repr);
  }
}

function derived(x: EvalExpr, from: Value, flags: { final?: boolean } = {}): Value {
  const v = new Value(x, from.schema);
  v.repr = from.repr;
  v.final = flags.final === true;
  v.combine(from);
  return v;
}

function exportValue(e: BuiltinHost, v: Value): EscValue {
  const out = v.export('');
  e.run.diagnostics.push(...out.diagnostics);
  return out.value;
}

function exportObject(e: BuiltinHost, v: Value): Record<string, EscValue> | undefined {
  const out = exportValue(e, v).value;
  return out !== null && typeof out === 'object' && !Array.isArray(out) ? out : undefined;
}

/** Go's strings.Split: an empty separator splits into characters, an empty string gives one empty part. */
function splitLikeGo(s: string, sep: string): string[] {
  return sep === '' ? [...s] : s.split(sep);
}

async function evaluateSecret(e: BuiltinHost, x: EvalExpr, repr: BuiltinRepr): Promise<Value> {
  if (repr.args.plaintext !== undefined) return e.evaluateExpr(repr.args.plaintext, stringSchema());
  const v = new Value(x, x.schema);
  v.secret = true;
  v.unknown = true;
  const node = repr.node;
  const encoded = node.kind === 'secret' ? (node.ciphertext?.value ?? '') : '';
  const decoded = decodeCiphertext(encoded);
  if (typeof decoded === 'string') {
    e.error(node, `invalid ciphertext: ${decoded}`);
    return v;
  }
  if (!e.decryptSecrets()) return v;
  if (e.decrypt === undefined) {
    e.error(node, 'decrypting: no decrypter for this environment');
    return v;
  }
  try {
    v.repr = Buffer.from(await e.decrypt(decoded)).toString('utf8');
    v.unknown = false;
  } catch (err) {
    e.error(node, `decrypting: ${(err as Error).message}`);
  }
  return v;
}

/** Compiles a provider-declared schema, reporting a broken one as ESC does. */
function providerSchema(e: BuiltinHost, x: EvalExpr, json: unknown, what: string): Schema | undefined {
  const schema = fromJSONSchema((json ?? true) as never);
  try {
    compileSchema(schema);
    return schema;
  } catch (err) {
    e.error(x.repr.node, `internal error: invalid ${what} (${(err as Error).message})`);
    return undefined;
  }
}

async function evaluateOpen(e: BuiltinHost, x: EvalExpr, repr: BuiltinRepr): Promise<Value> {
  const node = repr.node;
  const providerName = node.kind === 'open' ? node.provider?.value : undefined;
  if (providerName === undefined) return unknownValue(x, always());
  const provider = e.run.options.providers?.[providerName];
  if (provider === undefined) e.error(node, `unknown provider ${JSON.stringify(providerName)}`);
  else {
    repr.inputSchema = providerSchema(e, x, provider.inputSchema, 'input schema') ?? repr.inputSchema;
    x.schema = providerSchema(e, x, provider.outputSchema, 'schema') ?? x.schema;
  }
  const { value: inputs, ok } = await e.evaluateTyped(repr.args.inputs!, repr.inputSchema ?? always());
  if (!ok || inputs.containsUnknowns() || e.validating || provider === undefined) return unknownValue(x);
  return providerOutput(e, x, () => provider.open(exportObject(e, inputs) ?? {}, e.execContext));
}

/** A provider's or rotator's output as the value of `x`; a failure is a diagnostic and an unknown value. */
async function providerOutput(e: BuiltinHost, x: EvalExpr, open: () => Promise<EscValue>): Promise<Value> {
  let output: EscValue;
  try {
    output = await open();
  } catch (err) {
    e.error(x.repr.node, (err as Error).message);
    return unknownValue(x);
  }
  return unexport(output.secret ? makeSecret(output) : output, x);
}

async function evaluateRotate(e: BuiltinHost, x: EvalExpr, repr: BuiltinRepr): Promise<Value> {
  const node = repr.node;
  const rotatorName = node.kind === 'rotate' ? node.provider?.value : undefined;
  if (rotatorName === undefined) return unknownValue(x, always());
  const rotator = e.run.options.rotators?.[rotatorName];
  if (rotator === undefined) e.error(node, `unknown rotator ${JSON.stringify(rotatorName)}`);
  else {
    repr.inputSchema = providerSchema(e, x, rotator.inputSchema, 'input schema') ?? repr.inputSchema;
    const state = providerSchema(e, x, rotator.stateSchema, 'state schema');
    if (state !== undefined) {
      repr.stateSchema = oneOfSchema([state, nullSchema()]);
      compileSchema(repr.stateSchema);
    }
    x.schema = providerSchema(e, x, rotator.outputSchema, 'schema') ?? x.schema;
  }
  const docPath = node.syntax?.path ?? '';
  const inputs = await e.evaluateTyped(repr.args.inputs!, repr.inputSchema ?? always());
  const state = await e.evaluateTyped(repr.args.state!, repr.stateSchema ?? always());
  const rotate = shouldRotate(e, docPath);
  if (!inputs.ok || inputs.value.containsObservableUnknowns(e.rotating) || !state.ok || state.value.containsUnknowns() || e.validating || rotator === undefined) {
    if (rotate) e.run.rotations.push({ path: docPath, status: 'not-evaluated' });
    return unknownValue(x);
  }
  const inputValues = exportObject(e, inputs.value) ?? {};
  let stateValue = state.value;
  if (rotate) {
    let newState: EscValue;
    try {
      newState = await rotator.rotate(inputValues, exportObject(e, stateValue), e.execContext);
    } catch (err) {
      const message = (err as Error).message;
      e.run.rotations.push({ path: docPath, status: 'failed', diagnostics: [exprError(node, message)] });
      e.error(node, `rotate: ${message}`);
      return unknownValue(x);
    }
    const name = node.kind === 'rotate' ? node.name.value : '';
    e.run.rotations.push({ path: docPath, status: 'succeeded', patch: { docPath: `${joinKey(docPath, name)}.state`, replacement: newState } });
    stateValue = unexport(newState.secret ? makeSecret(newState) : newState, x);
  }
  const openState = exportObject(e, stateValue);
  return providerOutput(e, x, () => rotator.open(inputValues, openState, e.execContext));
}

function shouldRotate(e: BuiltinHost, docPath: string): boolean {
  if (!e.rotating) return false;
  const paths = e.run.mode.rotatePaths;
  return paths === undefined || paths.size === 0 || paths.has(docPath);
}

async function evaluateValidate(e: BuiltinHost, x: EvalExpr, repr: BuiltinRepr): Promise<Value> {
  const schemaExpr = repr.args.schema!;
  const valueExpr = repr.args.value!;
  const schemaValue = await e.evaluateTyped(schemaExpr, jsonSchemaSchema());
  const unvalidated = async (): Promise<Value> => derived(x, await e.evaluateExpr(valueExpr, always()));
  if (schemaValue.value.containsUnknowns() || !schemaValue.ok) return unvalidated();
  const json = toJSON(exportValue(e, schemaValue.value), false);
  if (typeof json !== 'boolean' && (json === null || typeof json !== 'object' || Array.isArray(json))) {
    e.error(schemaExpr.repr.node, 'invalid schema: a schema must be an object or a boolean');
    return unvalidated();
  }
  const schema = fromJSONSchema(json as never);
  try {
    compileSchema(schema);
  } catch (err) {
    e.error(schemaExpr.repr.node, `invalid schema: ${(err as Error).message}`);
    return unvalidated();
  }
  repr.inputSchema = schema;
  const { value } = await e.evaluateTyped(valueExpr, schema);
  return derived(x, value);
}
