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
  type EscEnvironment,
  type EvalOptions,
} from '../../shared/esc/index.js';
import { testProviders, testRotators } from './esc-providers.js';

/**
 * pulumi/esc's own evaluation cases (test/fixtures/esc-eval, unchanged, see its NOTICE), run as ESC's TestEval
 * runs them: load, check (with the case's showSecrets), evaluate, and rotate when the case asks. Everything ESC
 * recorded is compared: the checked and evaluated environments whole (expressions with their schemas, values
 * with their secret/unknown markings and traces, the schema, the execution context), the values as JSON
 * (redacted and revealed), the rotation patches, and every diagnostic's severity, message, path and range.
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
interface Expected {
  loadDiags?: ExpectedDiag[];
  checkDiags?: ExpectedDiag[];
  evalDiags?: ExpectedDiag[];
  rotateDiags?: ExpectedDiag[];
  check?: unknown;
  eval?: unknown;
  rotate?: unknown;
  checkJson?: unknown;
  evalJsonRedacted?: unknown;
  evalJSONRevealed?: unknown;
  rotatePatches?: { DocPath: string; Replacement: unknown }[];
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

/** A source range as `environment@line:column-line:column` (ESC's byte offsets are 0 on a file's last line, a bug). */
function rangeKey(r: { environment?: string; begin: { line: number; column: number }; end: { line: number; column: number } }): string {
  return `${r.environment ?? ''}@${r.begin.line}:${r.begin.column}-${r.end.line}:${r.end.column}`;
}

const isRange = (x: Record<string, unknown>): boolean => typeof x.begin === 'object' && typeof x.end === 'object' && x.begin !== null;

/**
 * ESC's JSON and ours made comparable: ranges as {@link rangeKey}, a `value` of null left out (Go omits it), and
 * a trace that says nothing (Go's zero value, for values a provider made up) left out.
 */
function normalize(x: unknown): unknown {
  if (Array.isArray(x)) return x.map(normalize);
  if (x === null || typeof x !== 'object') return x;
  const o = x as Record<string, unknown>;
  if (isRange(o)) return rangeKey(o as never);
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) {
    if (k === 'value' && v === null) continue;
    const n = normalize(v);
    if (k === 'trace' && JSON.stringify(n) === JSON.stringify({ def: '@0:0-0:0' })) continue;
    out[k] = n;
  }
  return out;
}

/** An environment as ESC's JSON holds one: maps it leaves out when empty are given back as {}. */
function normalizeEnvironment(env: unknown): unknown {
  if (env === undefined || env === null) return undefined;
  const e = env as Record<string, unknown>;
  const context = (e.executionContext ?? {}) as Record<string, unknown>;
  return normalize({
    exprs: e.exprs ?? {},
    properties: e.properties ?? {},
    schema: e.schema,
    executionContext: { properties: context.properties ?? {}, schema: context.schema },
  });
}

const diagKey = (severity: string, summary: string, path: string, start?: ExpectedPos, end?: ExpectedPos): string =>
  `${start ? `${start.Line}:${start.Column}-${end!.Line}:${end!.Column}` : '-'} ${path} ${severity}: ${summary}`;

function expectedDiags(diags: ExpectedDiag[] | undefined): string[] {
  return (diags ?? []).map((d) => diagKey(d.Severity === 1 ? 'error' : 'warning', d.Summary, d.Path, d.Subject?.Start, d.Subject?.End)).sort();
}

function actualDiags(diags: Diagnostic[]): string[] {
  const pos = (p: { line: number; column: number } | undefined): ExpectedPos | undefined => p && { Line: p.line, Column: p.column };
  return diags.map((d) => diagKey(d.severity, d.summary, d.path, pos(d.range?.begin), pos(d.range?.end))).sort();
}

const json = (env: EscEnvironment, redact: boolean): unknown => toJSON({ value: env.properties }, redact);

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
    expect(normalizeEnvironment(checked.environment), 'checked environment').toEqual(normalizeEnvironment(expected.check));
    if (checked.environment) expect(json(checked.environment, true), 'checkJson').toEqual(expected.checkJson);

    const evaluated = await evalDecl(name, loaded.env, options(caseName, false));
    expect(actualDiags(evaluated.diagnostics), 'eval diagnostics').toEqual(expectedDiags(expected.evalDiags));
    expect(normalizeEnvironment(evaluated.environment), 'evaluated environment').toEqual(normalizeEnvironment(expected.eval));
    if (evaluated.environment) {
      expect(json(evaluated.environment, true), 'evalJsonRedacted').toEqual(expected.evalJsonRedacted);
      expect(json(evaluated.environment, false), 'evalJSONRevealed').toEqual(expected.evalJSONRevealed);
    }

    if (overrides.rotate) {
      const rotated = await rotateDecl(name, loaded.env, { ...options(caseName, false), paths: overrides.rotatePaths });
      expect(actualDiags(rotated.diagnostics), 'rotate diagnostics').toEqual(expectedDiags(expected.rotateDiags));
      expect(normalizeEnvironment(rotated.environment), 'rotated environment').toEqual(normalizeEnvironment(expected.rotate));
      const patches = rotated.rotations.flatMap((r) => (r.patch ? [{ DocPath: r.patch.docPath, Replacement: r.patch.replacement }] : []));
      patches.sort((a, b) => (a.DocPath < b.DocPath ? -1 : a.DocPath > b.DocPath ? 1 : 0));
      expect(normalize(patches), 'rotation patches').toEqual(normalize(expected.rotatePatches ?? []));
    }
  });
});
