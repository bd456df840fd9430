import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  ANONYMOUS_ENVIRONMENT,
  checkDecl,
  evalDecl,
  loadEnvironment,
  rotateDecl,
  toJSON,
  type Diagnostic,
  type EscValue,
  type EvalOptions,
} from '../../shared/esc/index.js';
import { testProviders, testRotators } from './esc-providers.js';

/**
 * pulumi/esc's own evaluation cases (test/fixtures/esc-eval, see its NOTICE), run as ESC's TestEval runs them:
 * load, check (with the case's showSecrets), evaluate, and rotate when the case asks; compared with what ESC
 * recorded — values as JSON (redacted and revealed), secret and unknown markings, where each evaluated value
 * was defined (and over which imported value), rotation patches, and diagnostics by severity, message, document
 * path and source range.
 */
const FIXTURES = join(import.meta.dirname, '../fixtures/esc-eval');
const CASES = readdirSync(FIXTURES).filter((name) => existsSync(join(FIXTURES, name, 'env.yaml')));

interface ExpectedPos {
  Line: number;
  Column: number;
}
interface ExpectedDiag {
  Severity: number;
  Summary: string;
  Path: string;
  Subject: { Start: ExpectedPos; End: ExpectedPos } | null;
}
interface Marked {
  value?: unknown;
  secret?: boolean;
  unknown?: boolean;
  trace?: { def?: RangeJSON; base?: Marked };
}
interface RangeJSON {
  environment?: string;
  begin: { line: number; column: number };
  end: { line: number; column: number };
}
interface Expected {
  loadDiags?: ExpectedDiag[];
  checkDiags?: ExpectedDiag[];
  evalDiags?: ExpectedDiag[];
  rotateDiags?: ExpectedDiag[];
  check?: { properties: Record<string, Marked> };
  eval?: { properties: Record<string, Marked> };
  rotate?: { properties: Record<string, Marked> };
  checkJson?: unknown;
  evalJsonRedacted?: unknown;
  evalJSONRevealed?: unknown;
  rotatePatches?: { DocPath: string; Replacement: Marked }[];
}
interface Overrides {
  showSecrets?: boolean;
  rootEnvironment?: string;
  rotate?: boolean;
  rotatePaths?: string[];
}

/** ESC's test decrypter: every byte plus 128. */
const rot128 = async (ciphertext: Uint8Array): Promise<Uint8Array> => ciphertext.map((b) => (b + 128) & 0xff);

function options(caseName: string, showSecrets: boolean): EvalOptions {
  return {
    loadImport: async (name) => {
      const path = join(FIXTURES, caseName, `${name}.yaml`);
      // ESC's test loader reads files, so a missing import reports the file system's error.
      if (!existsSync(path)) throw new Error(`open testdata/eval/${caseName}/${name}.yaml: no such file or directory`);
      return { yaml: readFileSync(path, 'utf8'), decrypt: rot128 };
    },
    providers: testProviders,
    rotators: testRotators,
    decrypt: rot128,
    context: { pulumi: { value: { user: { value: { id: { value: 'USER_123' } } } } } },
    showSecrets,
  };
}

/**
 * A diagnostic as one comparable line: start and end (line and column), document path, severity and message.
 * Byte offsets are left out: ESC's decoder reports byte 0 for every position on a file's last line.
 */
const diagKey = (severity: string, summary: string, path: string, start?: ExpectedPos, end?: ExpectedPos): string =>
  `${start ? `${start.Line}:${start.Column}-${end!.Line}:${end!.Column}` : '-'} ${path} ${severity}: ${summary}`;

function expectedDiags(diags: ExpectedDiag[] | undefined): string[] {
  return (diags ?? []).map((d) => diagKey(d.Severity === 1 ? 'error' : 'warning', d.Summary, d.Path, d.Subject?.Start, d.Subject?.End)).sort();
}

function actualDiags(diags: Diagnostic[]): string[] {
  const pos = (p: { line: number; column: number } | undefined): ExpectedPos | undefined => p && { Line: p.line, Column: p.column };
  return diags.map((d) => diagKey(d.severity, d.summary, d.path, pos(d.range?.begin), pos(d.range?.end))).sort();
}

/** A value reduced to its contents and markings, as the fixtures keep them (a null value is left out, as Go omits it). */
function marked(v: EscValue | Marked): Marked {
  const out: Marked = {};
  const inner = v.value;
  if (Array.isArray(inner)) out.value = inner.map(marked);
  else if (inner !== null && typeof inner === 'object') out.value = Object.fromEntries(Object.entries(inner).map(([k, x]) => [k, marked(x as Marked)]));
  else if (inner !== null && inner !== undefined) out.value = inner;
  if (v.secret) out.secret = true;
  if (v.unknown) out.unknown = true;
  return out;
}

/**
 * A value reduced to its contents, markings and trace: where each value and each imported value beneath it was
 * defined, as `environment@line:column-line:column` (bytes left out, see diagKey).
 */
function traced(v: EscValue | Marked): unknown {
  const inner = v.value;
  let value: unknown = inner;
  if (Array.isArray(inner)) value = inner.map(traced);
  else if (inner !== null && typeof inner === 'object') value = Object.fromEntries(Object.entries(inner).map(([k, x]) => [k, traced(x as Marked)]));
  const def = v.trace?.def as RangeJSON | undefined;
  return {
    value: value ?? null,
    secret: v.secret === true,
    unknown: v.unknown === true,
    def: def && `${def.environment ?? ''}@${def.begin.line}:${def.begin.column}-${def.end.line}:${def.end.column}`,
    base: v.trace?.base && traced(v.trace.base),
  };
}

const mapProperties = <T>(properties: Record<string, EscValue | Marked>, f: (v: EscValue | Marked) => T): Record<string, T> =>
  Object.fromEntries(Object.entries(properties).map(([k, v]) => [k, f(v)]));

describe('pulumi/esc eval cases', () => {
  it.each(CASES)('%s', async (caseName) => {
    const dir = join(FIXTURES, caseName);
    const expected = JSON.parse(readFileSync(join(dir, 'expected.json'), 'utf8')) as Expected;
    const overrides: Overrides = existsSync(join(dir, 'overrides.json')) ? JSON.parse(readFileSync(join(dir, 'overrides.json'), 'utf8')) : {};
    const name = overrides.rootEnvironment ?? caseName;
    expect(name === ANONYMOUS_ENVIRONMENT || name === caseName).toBe(true);

    const loaded = loadEnvironment(name, readFileSync(join(dir, 'env.yaml'), 'utf8'));
    expect(actualDiags(loaded.diagnostics), 'load diagnostics').toEqual(expectedDiags(expected.loadDiags));

    const checked = await checkDecl(name, loaded.env, options(caseName, overrides.showSecrets === true));
    expect(actualDiags(checked.diagnostics), 'check diagnostics').toEqual(expectedDiags(expected.checkDiags));
    expect(checked.environment && mapProperties(checked.environment.properties, marked), 'checked values').toEqual(expected.check?.properties);
    if (checked.environment) expect(toJSON({ value: checked.environment.properties }, true), 'checkJson').toEqual(expected.checkJson);

    const evaluated = await evalDecl(name, loaded.env, options(caseName, false));
    expect(actualDiags(evaluated.diagnostics), 'eval diagnostics').toEqual(expectedDiags(expected.evalDiags));
    const evaluatedTraces = evaluated.environment && mapProperties(evaluated.environment.properties, traced);
    expect(evaluatedTraces, 'evaluated values with traces').toEqual(expected.eval && mapProperties(expected.eval.properties, traced));
    if (evaluated.environment) {
      const properties = { value: evaluated.environment.properties };
      expect(toJSON(properties, true), 'evalJsonRedacted').toEqual(expected.evalJsonRedacted);
      expect(toJSON(properties, false), 'evalJSONRevealed').toEqual(expected.evalJSONRevealed);
    }

    if (overrides.rotate) {
      const rotated = await rotateDecl(name, loaded.env, { ...options(caseName, false), paths: overrides.rotatePaths });
      expect(actualDiags(rotated.diagnostics), 'rotate diagnostics').toEqual(expectedDiags(expected.rotateDiags));
      expect(rotated.environment && mapProperties(rotated.environment.properties, marked), 'rotated values').toEqual(expected.rotate?.properties);
      const patches = rotated.rotations.flatMap((r) => (r.patch ? [{ DocPath: r.patch.docPath, Replacement: marked(r.patch.replacement) }] : []));
      patches.sort((a, b) => (a.DocPath < b.DocPath ? -1 : a.DocPath > b.DocPath ? 1 : 0));
      expect(patches, 'rotation patches').toEqual(expected.rotatePatches ?? []);
    }
  });
});
