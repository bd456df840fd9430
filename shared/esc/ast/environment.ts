import { errorAt, hasErrors, type Diagnostic } from '../diagnostics.js';
import { exprError, parseExpr, stringSyntax, type BooleanExpr, type Expr, type StringExpr } from './expr.js';
import { levenshtein } from '../spell.js';
import { decodeYaml, type SyntaxNode } from './syntax.js';

/** One entry of `imports`: an environment name, and whether its values merge into this one (default true). */
export interface ImportDecl {
  syntax: SyntaxNode;
  environment?: StringExpr;
  merge?: BooleanExpr;
}

/** One top-level key of `values`. */
export interface ValueEntry {
  key: StringExpr;
  value: Expr;
}

/** A parsed environment definition. */
export interface EnvironmentDecl {
  syntax?: SyntaxNode;
  description?: StringExpr;
  imports: ImportDecl[];
  values: ValueEntry[];
}

const FIELDS = ['description', 'imports', 'values'] as const;

/** Parses an environment's YAML text. No declaration comes back when the text is not valid YAML. */
export function loadEnvironment(name: string, yamlText: string): { env?: EnvironmentDecl; diagnostics: Diagnostic[] } {
  const decoded = decodeYaml(name, yamlText);
  if (decoded.node === undefined || hasErrors(decoded.diagnostics)) return { diagnostics: decoded.diagnostics };
  const diagnostics = [...decoded.diagnostics];
  const env = parseEnvironment(decoded.node, diagnostics);
  return { env, diagnostics };
}

/** Parses the top level of an environment: `description`, `imports` and `values` (keys matched case-insensitively). */
export function parseEnvironment(node: SyntaxNode, diags: Diagnostic[]): EnvironmentDecl {
  const env: EnvironmentDecl = { syntax: node, imports: [], values: [] };
  if (node.kind !== 'object') {
    diags.push(errorAt(node.range, 'environment must be an object', node.path));
    return env;
  }
  const seen = new Set<string>();
  for (const entry of node.entries) {
    const key = entry.key.kind === 'string' ? entry.key.value : '';
    if (seen.has(key)) diags.push({ ...errorAt(entry.key.range, `duplicate key ${JSON.stringify(key)}`, entry.key.path), severity: 'warning' });
    seen.add(key);
    const field = FIELDS.find((f) => f === key.toLowerCase());
    if (field === 'description') {
      const x = parseExpr(entry.value, diags);
      if (x.kind === 'string') env.description = x;
      else diags.push(exprError(x, 'description must be a string'));
    } else if (field === 'imports') {
      env.imports = parseImports(entry.value, diags);
    } else if (field === 'values') {
      env.values = parseValues(entry.value, diags);
    } else {
      diags.push({ ...errorAt(entry.key.range, unknownFieldMessage(key), entry.key.path), severity: 'warning' });
    }
  }
  return env;
}

function unknownFieldMessage(key: string): string {
  const fields = [...FIELDS].sort((a, b) => levenshtein(key.toLowerCase(), a) - levenshtein(key.toLowerCase(), b));
  return `Field '${key}' does not exist on Object 'environment'. Existing fields are: ${fields.map((f) => `'${f}'`).join(', ')}`;
}

function parseImports(node: SyntaxNode, diags: Diagnostic[]): ImportDecl[] {
  if (node.kind !== 'array') {
    diags.push(errorAt(node.range, 'imports must be a list', node.path));
    return [];
  }
  return node.items.map((item) => {
    if (item.kind === 'string') return { syntax: item, environment: stringSyntax(item) };
    if (item.kind !== 'object') {
      diags.push(errorAt(item.range, 'import must be a string or an object', item.path));
      return { syntax: item };
    }
    if (item.entries.length !== 1) {
      diags.push(errorAt(item.range, 'import must have a single key', item.path));
      return { syntax: item };
    }
    const [entry] = item.entries;
    const decl: ImportDecl = { syntax: item, ...(entry.key.kind === 'string' ? { environment: stringSyntax(entry.key) } : {}) };
    const meta = entry.value;
    if (meta.kind !== 'object') {
      diags.push(errorAt(meta.range, 'import must be an object', meta.path));
      return decl;
    }
    for (const m of meta.entries) {
      if (m.key.kind !== 'string' || m.key.value.toLowerCase() !== 'merge') continue;
      const x = parseExpr(m.value, diags);
      if (x.kind === 'boolean') decl.merge = x;
      else diags.push(exprError(x, 'merge must be a boolean value'));
    }
    return decl;
  });
}

function parseValues(node: SyntaxNode, diags: Diagnostic[]): ValueEntry[] {
  if (node.kind !== 'object') {
    diags.push(errorAt(node.range, 'values must be an object', node.path));
    return [];
  }
  return node.entries.flatMap((entry): ValueEntry[] => {
    if (entry.key.kind !== 'string') return [];
    if (entry.key.value.startsWith('fn::')) {
      diags.push(errorAt(entry.key.range, `builtin function call ${JSON.stringify(entry.key.value)} not allowed at the top level`, entry.key.path));
    }
    return [{ key: stringSyntax(entry.key), value: parseExpr(entry.value, diags) }];
  });
}
