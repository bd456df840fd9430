import { errorAt, type Diagnostic } from '../diagnostics.js';
import { parseInterpolation, type Interpolation, type PropertyAccess } from './property.js';
import type { ObjectEntry, ObjectNode, StringNode, SyntaxNode } from './syntax.js';

interface ExprBase {
  /** The syntax the expression came from; absent for expressions the parser makes up. */
  syntax?: SyntaxNode;
}

/** `null`. */
export interface NullExpr extends ExprBase {
  kind: 'null';
}
/** A boolean literal. */
export interface BooleanExpr extends ExprBase {
  kind: 'boolean';
  value: boolean;
}
/** A number literal. */
export interface NumberExpr extends ExprBase {
  kind: 'number';
  value: number;
}
/** A string literal (after `$$` unescaping). */
export interface StringExpr extends ExprBase {
  kind: 'string';
  value: string;
}
/** A string with `${…}` parts. */
export interface InterpolateExpr extends ExprBase {
  kind: 'interpolate';
  parts: Interpolation[];
}
/** A string that is exactly one `${…}`: its value is the referenced value itself, of any type. */
export interface SymbolExpr extends ExprBase {
  kind: 'symbol';
  property: PropertyAccess;
}
/** A list. */
export interface ArrayExpr extends ExprBase {
  kind: 'array';
  elements: Expr[];
}
/** One key of an object literal; `key` is absent when the key was not a plain string. */
export interface ObjectProperty {
  key?: StringExpr;
  value: Expr;
}
/** An object literal. */
export interface ObjectExpr extends ExprBase {
  kind: 'object';
  entries: ObjectProperty[];
}

interface BuiltinBase extends ExprBase {
  name: StringExpr;
  args: Expr;
}
/** `fn::open` / `fn::open::<provider>`. `provider` is absent when it was missing or not a literal. */
export interface OpenExpr extends BuiltinBase {
  kind: 'open';
  provider?: StringExpr;
  inputs?: Expr;
}
/** `fn::rotate` / `fn::rotate::<rotator>`; `state` is `null` when left out. */
export interface RotateExpr extends BuiltinBase {
  kind: 'rotate';
  provider?: StringExpr;
  inputs?: Expr;
  state?: Expr;
}
/** `fn::secret`: either a plaintext literal or `{ciphertext: …}`. */
export interface SecretExpr extends BuiltinBase {
  kind: 'secret';
  plaintext?: StringExpr;
  ciphertext?: StringExpr;
}
/** `fn::join: [delimiter, values]` and `fn::split: [delimiter, string]`; operands absent when the argument was malformed. */
export interface PairBuiltinExpr extends BuiltinBase {
  kind: 'join' | 'split';
  delimiter?: Expr;
  operand?: Expr;
}
/** `fn::validate: {schema, value}`. */
export interface ValidateExpr extends BuiltinBase {
  kind: 'validate';
  schema?: Expr;
  value?: Expr;
}
/** The builtins of one argument. */
export interface UnaryBuiltinExpr extends BuiltinBase {
  kind: 'toJSON' | 'fromJSON' | 'toString' | 'toBase64' | 'fromBase64' | 'concat' | 'final';
}
/** A call of a builtin function (`fn::…`). */
export type BuiltinExpr = OpenExpr | RotateExpr | SecretExpr | PairBuiltinExpr | ValidateExpr | UnaryBuiltinExpr;

/** Any ESC expression. */
export type Expr = NullExpr | BooleanExpr | NumberExpr | StringExpr | InterpolateExpr | SymbolExpr | ArrayExpr | ObjectExpr | BuiltinExpr;

/** An error diagnostic placed on an expression's syntax. */
export function exprError(x: Expr | undefined, summary: string): Diagnostic {
  return errorAt(x?.syntax?.range, summary, x?.syntax?.path ?? '');
}

/** A string expression for a string node, taken verbatim (no interpolation). */
export function stringSyntax(node: StringNode, value = node.value): StringExpr {
  return { kind: 'string', value, syntax: node };
}

/** A string expression with no place in the source. */
export function stringLiteral(value: string): StringExpr {
  return { kind: 'string', value };
}

/** Parses a syntax node into an expression, collecting every problem found. */
export function parseExpr(node: SyntaxNode, diags: Diagnostic[]): Expr {
  switch (node.kind) {
    case 'null':
      return { kind: 'null', syntax: node };
    case 'boolean':
      return { kind: 'boolean', value: node.value, syntax: node };
    case 'number':
      return { kind: 'number', value: node.value, syntax: node };
    case 'string':
      return parseString(node, diags);
    case 'array':
      return { kind: 'array', elements: node.items.map((item) => parseExpr(item, diags)), syntax: node };
    case 'object':
      return tryParseBuiltin(node, diags) ?? parseObject(node, diags);
  }
}

function parseString(node: StringNode, diags: Diagnostic[]): Expr {
  const { parts, diagnostics } = parseInterpolation(node);
  diags.push(...diagnostics);
  if (parts.length === 0) return stringSyntax(node);
  if (parts.length === 1) {
    if (parts[0].value === undefined) return stringSyntax(node, parts[0].text);
    if (parts[0].text === '') return { kind: 'symbol', property: parts[0].value, syntax: node };
  }
  return { kind: 'interpolate', parts, syntax: node };
}

function parseObject(node: ObjectNode, diags: Diagnostic[]): ObjectExpr {
  const entries = node.entries.map((entry: ObjectEntry): ObjectProperty => {
    const key = parseExpr(entry.key, diags);
    if (key.kind !== 'string') diags.push(errorAt(entry.key.range, 'object keys must be strings', entry.key.path));
    const value = parseExpr(entry.value, diags);
    return key.kind === 'string' ? { key, value } : { value };
  });
  return { kind: 'object', entries, syntax: node };
}

type BuiltinParser = (node: ObjectNode, name: StringExpr, args: Expr, diags: Diagnostic[]) => BuiltinExpr;

const unary =
  (kind: UnaryBuiltinExpr['kind']): BuiltinParser =>
  (node, name, args) => ({ kind, name, args, syntax: node });

const BUILTINS: Record<string, BuiltinParser> = {
  'fn::concat': (node, name, args, diags) => {
    if (args.kind !== 'array') diags.push(exprError(args, 'the argument to fn::concat must be an array of arrays'));
    return { kind: 'concat', name, args, syntax: node };
  },
  'fn::final': unary('final'),
  'fn::fromJSON': unary('fromJSON'),
  'fn::fromBase64': unary('fromBase64'),
  'fn::toBase64': unary('toBase64'),
  'fn::toJSON': unary('toJSON'),
  'fn::toString': unary('toString'),
  'fn::join': (node, name, args, diags) => parsePair('join', node, name, args, diags),
  'fn::split': (node, name, args, diags) => parsePair('split', node, name, args, diags),
  'fn::open': parseOpen,
  'fn::rotate': parseRotate,
  'fn::secret': parseSecret,
  'fn::validate': parseValidate,
};

function tryParseBuiltin(node: ObjectNode, diags: Diagnostic[]): Expr | undefined {
  if (node.entries.length !== 1) {
    for (const entry of node.entries) {
      if (entry.key.kind === 'string' && entry.key.value.startsWith('fn::')) {
        diags.push(
          errorAt(node.range, `illegal call to builtin function: ${JSON.stringify(entry.key.value)} must be the only key within its containing object`, node.path),
        );
      }
    }
    return undefined;
  }
  const entry = node.entries[0];
  if (entry.key.kind !== 'string') return undefined;
  const key = entry.key.value;
  let parse = BUILTINS[key];
  if (parse === undefined && key.startsWith('fn::open::')) parse = parseShortOpen;
  if (parse === undefined && key.startsWith('fn::rotate::')) parse = parseShortRotate;
  if (parse === undefined) {
    if (key.toLowerCase().startsWith('fn::')) diags.push(errorAt(entry.key.range, "'fn::' is a reserved prefix", node.path));
    return undefined;
  }
  const name = stringSyntax(entry.key);
  const args = parseExpr(entry.value, diags);
  return parse(node, name, args, diags);
}

function parsePair(kind: 'join' | 'split', node: ObjectNode, name: StringExpr, args: Expr, diags: Diagnostic[]): PairBuiltinExpr {
  if (args.kind !== 'array' || args.elements.length !== 2) {
    diags.push(exprError(args, `the argument to fn::${kind} must be a two-valued list`));
    return { kind, name, args, syntax: node };
  }
  return { kind, name, args, syntax: node, delimiter: args.elements[0], operand: args.elements[1] };
}

function entryOf(obj: ObjectExpr, key: string): Expr | undefined {
  let found: Expr | undefined;
  for (const e of obj.entries) if (e.key?.value === key) found = e.value;
  return found;
}

function providerOf(obj: ObjectExpr, diags: Diagnostic[]): StringExpr | undefined {
  const provider = entryOf(obj, 'provider');
  if (provider === undefined) diags.push(exprError(obj, "missing provider name ('provider')"));
  else if (provider.kind !== 'string') diags.push(exprError(provider, 'provider name must be a string literal'));
  return provider?.kind === 'string' ? provider : undefined;
}

function parseOpen(node: ObjectNode, name: StringExpr, args: Expr, diags: Diagnostic[]): OpenExpr {
  if (args.kind !== 'object') {
    diags.push(exprError(args, "the argument to fn::open must be an object containing 'provider' and 'inputs'"));
    return { kind: 'open', name, args, syntax: node };
  }
  const provider = providerOf(args, diags);
  const inputs = entryOf(args, 'inputs');
  if (inputs === undefined) diags.push(exprError(args, "missing provider inputs ('inputs')"));
  return { kind: 'open', name, args, syntax: node, provider, inputs };
}

function shortProvider(name: StringExpr, prefix: string): StringExpr {
  return { kind: 'string', value: name.value.slice(prefix.length), syntax: name.syntax };
}

function parseShortOpen(node: ObjectNode, name: StringExpr, args: Expr): OpenExpr {
  return { kind: 'open', name, args, syntax: node, provider: shortProvider(name, 'fn::open::'), inputs: args };
}

function rotationParts(obj: ObjectExpr, diags: Diagnostic[]): { inputs?: Expr; state: Expr } {
  const inputs = entryOf(obj, 'inputs');
  if (inputs === undefined) diags.push(exprError(obj, "missing provider inputs ('inputs')"));
  const state = entryOf(obj, 'state') ?? { kind: 'null' };
  if (state.syntax !== undefined && state.kind !== 'object') diags.push(exprError(state, 'rotation state must be an object literal'));
  return { inputs, state };
}

function parseRotate(node: ObjectNode, name: StringExpr, args: Expr, diags: Diagnostic[]): RotateExpr {
  if (args.kind !== 'object') {
    diags.push(exprError(args, "the argument to fn::rotate must be an object containing 'provider', 'inputs' and 'state'"));
    return { kind: 'rotate', name, args, syntax: node };
  }
  const provider = providerOf(args, diags);
  return { kind: 'rotate', name, args, syntax: node, provider, ...rotationParts(args, diags) };
}

function parseShortRotate(node: ObjectNode, name: StringExpr, args: Expr, diags: Diagnostic[]): RotateExpr {
  if (args.kind !== 'object') {
    diags.push(exprError(args, "the argument to fn::rotate must be an object containing 'inputs' and 'state'"));
    return { kind: 'rotate', name, args, syntax: node };
  }
  const provider = shortProvider(name, 'fn::rotate::');
  return { kind: 'rotate', name, args, syntax: node, provider, ...rotationParts(args, diags) };
}

function parseSecret(node: ObjectNode, name: StringExpr, args: Expr, diags: Diagnostic[]): SecretExpr {
  if (args.kind === 'object' && args.entries.length === 1) {
    const [entry] = args.entries;
    if (entry.key?.value === 'ciphertext' && entry.value.kind === 'string') {
      return { kind: 'secret', name, args, syntax: node, ciphertext: entry.value };
    }
  }
  if (args.kind !== 'string') {
    diags.push(exprError(args, 'secret values must be string literals'));
    return { kind: 'secret', name, args, syntax: node, plaintext: stringLiteral('') };
  }
  return { kind: 'secret', name, args, syntax: node, plaintext: args };
}

function parseValidate(node: ObjectNode, name: StringExpr, args: Expr, diags: Diagnostic[]): ValidateExpr {
  if (args.kind !== 'object') {
    diags.push(exprError(args, "the argument to fn::validate must be an object containing 'schema' and 'value'"));
    return { kind: 'validate', name, args, syntax: node };
  }
  const schema = entryOf(args, 'schema');
  const value = entryOf(args, 'value');
  if (schema === undefined) diags.push(exprError(args, "missing required property 'schema'"));
  if (value === undefined) diags.push(exprError(args, "missing required property 'value'"));
  return { kind: 'validate', name, args, syntax: node, schema, value };
}
