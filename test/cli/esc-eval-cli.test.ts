/**
 * pulumi/esc's own evaluation cases (test/fixtures/esc-eval, see its NOTICE) through `stackyard env` against a real
 * `stackyard serve`: each case's imports and the environment itself are saved with `env init`, then opened with
 * `env open` (values revealed) and read with `env get --value json` (secrets redacted); a case ESC reports errors
 * for at load or check is refused on save with each of them, by message and line. The cases that need ESC's
 * test-only providers, its test decrypter, a test execution context or a root-environment override are left to
 * test/esc/esc-eval.test.ts, which runs every case against the evaluator directly.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServe, type ServeProcess } from '../api/serve-process.js';
import { CliSandbox, removeSandboxes } from './cli-harness.js';

const FIXTURES = join(import.meta.dirname, '../fixtures/esc-eval');

interface ExpectedDiag {
  Severity: number;
  Summary: string;
  Subject: { Start: { Line: number } } | null;
}
interface Expected {
  loadDiags?: ExpectedDiag[];
  checkDiags?: ExpectedDiag[];
  checkJson?: unknown;
  evalJSONRevealed?: unknown;
}

const yamlOf = (dir: string): string[] => readdirSync(dir).filter((file) => file.endsWith('.yaml'));
const needsTestOnlyParts = (dir: string): boolean =>
  existsSync(join(dir, 'overrides.json')) ||
  yamlOf(dir).some((file) => /fn::open|fn::rotate|ciphertext|\$\{context\./.test(readFileSync(join(dir, file), 'utf8')));

const CASES = readdirSync(FIXTURES).filter((name) => existsSync(join(FIXTURES, name, 'env.yaml')) && !needsTestOnlyParts(join(FIXTURES, name)));
const expectedOf = (name: string): Expected => JSON.parse(readFileSync(join(FIXTURES, name, 'expected.json'), 'utf8')) as Expected;
const diagnosticsOf = (expected: Expected): ExpectedDiag[] => [...(expected.loadDiags ?? []), ...(expected.checkDiags ?? [])];
const errorsOf = (expected: Expected): ExpectedDiag[] => diagnosticsOf(expected).filter((d) => d.Severity === 1);
/** Cases ESC evaluates without a diagnostic at load or check, and records values for. */
const VALID = CASES.filter((name) => diagnosticsOf(expectedOf(name)).length === 0 && expectedOf(name).evalJSONRevealed !== undefined);
/**
 * Cases ESC refuses at load or check, when the environment alone is at fault: the import failures of ESC's cases
 * come from its test loader reading files (cycles of files, a missing file), which a service, where an import must
 * exist before it is named, cannot stage.
 */
const LOADER_ERROR = /^(cyclic import of|open testdata\/)/;
const REFUSED = CASES.filter((name) => {
  const errors = errorsOf(expectedOf(name));
  return errors.length > 0 && yamlOf(join(FIXTURES, name)).length === 1 && !errors.some((e) => LOADER_ERROR.test(e.Summary));
});
const hasSecrets = (name: string): boolean => readFileSync(join(FIXTURES, name, 'env.yaml'), 'utf8').includes('fn::secret');

describe('pulumi/esc eval cases through stackyard env and serve', () => {
  const sandbox = new CliSandbox();
  let serve: ServeProcess;
  let project: string;
  const cli = (args: string[], input?: string) => sandbox.run(project, args, { input });

  /** Each case gets an organization of its own, since cases import environments of the same names (`a`, `b`). */
  async function saveCase(name: string): Promise<{ env: string; status: number | null; stderr: string }> {
    const org = `esc-${name}`.slice(0, 40);
    // Through the API rather than `stackyard org create`: a CLI process per case costs CI time and tests nothing here.
    const created = await fetch(`${serve.url}/api/orgs`, {
      method: 'POST',
      headers: { authorization: `token ${serve.adminToken}`, 'content-type': 'application/json', accept: 'application/vnd.pulumi+8' },
      body: JSON.stringify({ name: org }),
    });
    expect(created.ok, await created.text()).toBe(true);
    const dir = join(FIXTURES, name);
    // ESC resolves a legacy import name `a` as `default/a`.
    for (const file of readdirSync(dir).filter((f) => f.endsWith('.yaml') && f !== 'env.yaml')) {
      const imported = await cli(['env', 'init', `${org}/default/${file.slice(0, -'.yaml'.length)}`, '-f', '-'], readFileSync(join(dir, file), 'utf8'));
      expect(imported.status, imported.stderr).toBe(0);
    }
    const env = `${org}/default/${name}`;
    const saved = await cli(['env', 'init', env, '-f', '-'], readFileSync(join(dir, 'env.yaml'), 'utf8'));
    return { env, status: saved.status, stderr: saved.stderr };
  }

  beforeAll(async () => {
    serve = await startServe({ storage: 'local' });
    project = sandbox.project('esccases', 'name: esccases\nruntime: nodejs\n');
    await sandbox.run(project, ['login', serve.url], { env: { STACKYARD_ACCESS_TOKEN: serve.adminToken } });
  });

  afterAll(async () => {
    await serve?.stop();
    removeSandboxes();
  });

  it('runs a fair share of the cases', () => {
    expect(VALID.length).toBeGreaterThanOrEqual(13);
    expect(REFUSED.length).toBeGreaterThanOrEqual(10);
  });

  it.concurrent.each(VALID)('%s: opens to the values ESC evaluates, and reads as ESC checks it', async (name) => {
    const expected = expectedOf(name);

    const saved = await saveCase(name);
    const opened = await cli(['env', 'open', saved.env, '--format', 'json']);
    const read = await cli(['env', 'get', saved.env, '--value', 'json']);

    expect(saved.status, saved.stderr).toBe(0);
    expect(opened.status, opened.stderr).toBe(0);
    expect(JSON.parse(opened.stdout)).toEqual(expected.evalJSONRevealed);
    expect(read.status, read.stderr).toBe(0);
    // ESC's case checks a plaintext fn::secret; a stored one is ciphertext, which checking leaves unknown (ESC's
    // evaluateBuiltinSecret), so values derived from a secret differ from the case's record there.
    if (!hasSecrets(name)) expect(JSON.parse(read.stdout)).toEqual(expected.checkJson);
  });

  it('empty: a definition with nothing in it opens to no values, as a new environment does', async () => {
    const saved = await saveCase('empty');
    const fresh = `esc-empty/default/fresh`;
    const created = await cli(['env', 'init', fresh]);

    const opened = await cli(['env', 'open', saved.env, '--format', 'json']);
    const openedFresh = await cli(['env', 'open', fresh, '--format', 'json']);

    expect(saved.status, saved.stderr).toBe(0);
    expect(created.status, created.stderr).toBe(0);
    expect(opened.status, opened.stderr).toBe(0);
    expect(JSON.parse(opened.stdout)).toEqual({});
    expect(openedFresh.status, openedFresh.stderr).toBe(0);
    expect(JSON.parse(openedFresh.stdout)).toEqual({});
  });

  it.concurrent.each(REFUSED)('%s: is refused on save with each error ESC reports, by message and line', async (name) => {
    const errors = errorsOf(expectedOf(name));

    const saved = await saveCase(name);
    const definition = await cli(['env', 'get', saved.env, '--definition']);

    expect(saved.status).not.toBe(0);
    // `env init` creates the environment, then saves the definition, as ESC's does: the save is what is refused.
    expect(definition.stdout.trim()).toBe('');
    for (const error of errors) {
      expect(saved.stderr).toContain(error.Summary);
      if (error.Subject) expect(saved.stderr).toMatch(new RegExp(`\\b${name}\\.yaml:${error.Subject.Start.Line}\\b|line ${error.Subject.Start.Line}\\b`));
    }
  });
});
