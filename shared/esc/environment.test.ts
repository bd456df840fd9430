import { describe, expect, it, vi } from 'vitest';
import {
  checkEnvironment,
  encodeCiphertext,
  environmentVariables,
  evalEnvironment,
  files,
  formatRotatePath,
  pulumiConfig,
  rotateEnvironment,
  toJSON,
  type EscEnvironment,
  type EscProvider,
  type EscRotator,
} from './index.js';

const json = (env: EscEnvironment | undefined, redact = false): unknown => toJSON({ value: env!.properties }, redact);
const brief = (diags: { severity: string; summary: string; range?: { begin: { line: number } } }[]): string[] =>
  diags.map((d) => `${d.range?.begin.line ?? '-'} ${d.severity}: ${d.summary}`);

describe('checking a definition', () => {
  it('returns every problem of a broken environment, from loading and from checking, with their lines', async () => {
    const yaml = ['values:', '  a: ${missing}', '  b:', '    fn::join: [",", "x", "y"]', '  c: ${a.b.'].join('\n');

    const { diagnostics } = await checkEnvironment('broken', yaml);

    expect(brief(diagnostics)).toEqual([
      '4 error: the argument to fn::join must be a two-valued list',
      '5 error: property name must not be empty',
      '5 error: missing closing brace \'}\' in interpolation',
      '2 error: unknown property "missing"',
    ]);
  });

  it('refuses text that is not YAML with one unplaced error and no environment', async () => {
    const { environment, diagnostics } = await checkEnvironment('bad', 'values: [1, 2\n');

    expect(environment).toBeUndefined();
    expect(brief(diagnostics)).toEqual(["- error: yaml: line 0: did not find expected ',' or ']'"]);
  });
});

describe('imports', () => {
  it('merges imports in order under the importing values, and reports an import the loader does not know', async () => {
    const defs: Record<string, string> = {
      base: 'values:\n  region: us-east-1\n  tags: { team: a, tier: 1 }\n',
      prod: 'values:\n  tags: { tier: 2 }\n',
    };
    const loadImport = vi.fn(async (name: string) => defs[name]);
    const yaml = 'imports:\n  - base\n  - prod\n  - nowhere\nvalues:\n  tags: { owner: me }\n  where: ${region}\n';

    const { environment, diagnostics } = await evalEnvironment('app', yaml, { loadImport });

    expect(json(environment)).toEqual({ region: 'us-east-1', tags: { owner: 'me', team: 'a', tier: 2 }, where: 'us-east-1' });
    expect(brief(diagnostics)).toEqual(['4 error: environment "nowhere" not found']);
  });
});

describe('secrets', () => {
  const xor = async (bytes: Uint8Array): Promise<Uint8Array> => bytes.map((b) => b ^ 0x5a);
  const sealed = async (plaintext: string): Promise<string> => encodeCiphertext(await xor(new TextEncoder().encode(plaintext)));

  it('decrypts ciphertext when evaluating and keeps it secret; a check shows it only with showSecrets', async () => {
    const yaml = `values:\n  password:\n    fn::secret:\n      ciphertext: ${await sealed('hunter2')}\n  dsn: user:\${password}@db\n`;

    const opened = await evalEnvironment('s', yaml, { decrypt: xor });
    const checked = await checkEnvironment('s', yaml, { decrypt: xor });
    const shown = await checkEnvironment('s', yaml, { decrypt: xor, showSecrets: true });

    expect(opened.diagnostics).toEqual([]);
    expect(json(opened.environment)).toEqual({ password: 'hunter2', dsn: 'user:hunter2@db' });
    expect(json(opened.environment, true)).toEqual({ password: '[secret]', dsn: '[secret]' });
    expect(checked.environment!.properties.password).toMatchObject({ secret: true, unknown: true });
    expect(json(shown.environment)).toEqual({ password: 'hunter2', dsn: 'user:hunter2@db' });
  });
});

describe('providers', () => {
  const vault: EscProvider = {
    inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
    outputSchema: { type: 'object', properties: { token: { type: 'string' } } },
    open: vi.fn(async (inputs) => ({ value: { token: { value: `t-${String(inputs.path.value)}` } }, secret: true })),
  };

  it('opens a provider with inputs checked against its schema, and not while checking', async () => {
    const yaml = 'values:\n  creds:\n    fn::open::vault:\n      path: app\n  token: ${creds.token}\n  bad:\n    fn::open::vault:\n      path: 42\n';

    const checked = await checkEnvironment('p', yaml, { providers: { vault } });
    const opened = await evalEnvironment('p', yaml, { providers: { vault } });

    expect(brief(checked.diagnostics)).toEqual(['8 error: expected string, got number']);
    expect(json(checked.environment)).toEqual({ creds: '[unknown]', token: '[unknown]', bad: '[unknown]' });
    expect(vault.open).toHaveBeenCalledTimes(1);
    expect(json(opened.environment)).toEqual({ creds: { token: 't-app' }, token: 't-app', bad: '[unknown]' });
    expect(json(opened.environment, true)).toMatchObject({ token: '[secret]' });
  });

  it('reports a provider it was not given', async () => {
    const { diagnostics } = await evalEnvironment('p', 'values:\n  x:\n    fn::open::nope: {}\n');

    expect(brief(diagnostics)).toEqual(['3 error: unknown provider "nope"']);
  });
});

describe('fn::validate', () => {
  it('passes a conforming value through and reports one that does not conform', async () => {
    const yaml = [
      'values:',
      '  port:',
      '    fn::validate:',
      '      schema: { type: number, minimum: 1024 }',
      '      value: 8080',
      '  low:',
      '    fn::validate:',
      '      schema: { type: number, minimum: 1024 }',
      '      value: 80',
    ].join('\n');

    const { environment, diagnostics } = await evalEnvironment('v', yaml);

    expect(json(environment)).toEqual({ port: 8080, low: 80 });
    expect(brief(diagnostics)).toEqual(['9 error: expected a number greater than or equal to 1024']);
  });

  it('refuses a schema that is not one, and leaves the value unvalidated', async () => {
    const yaml = ['values:', '  port:', '    fn::validate:', '      schema: { type: text }', '      value: 80'].join('\n');

    const { environment, diagnostics } = await evalEnvironment('v', yaml);

    expect(json(environment)).toEqual({ port: 80 });
    expect(brief(diagnostics)).toContain('4 error: expected one of ["string","number","boolean","array","object","null"]');
  });
});

describe('a `false` schema', () => {
  // ESC (eval/eval_validate.go, validateElement and validateSchemaType: `if accept.Never { return false }`) fails the
  // value without a diagnostic; fn::validate passes it through, and fn::open leaves the provider unopened (unknown).
  const strict = {
    inputSchema: { type: 'object', properties: { pair: { type: 'array', prefixItems: [{ type: 'string' }], items: false }, off: false }, additionalProperties: false },
    outputSchema: { type: 'string' },
    open: vi.fn(async () => ({ value: 'opened' })),
  } as unknown as EscProvider;

  it('refuses every value with no diagnostic, as ESC does', async () => {
    const inputs = ['off: 1', 'pair: [x, y]', 'extra: 1', 'pair: [x]'];
    const yaml = ['values:', '  checked:', '    fn::validate:', '      schema: false', '      value: 80']
      .concat(inputs.flatMap((input, i) => [`  open${i}:`, '    fn::open::strict:', `      ${input}`]))
      .join('\n');

    const opened = await evalEnvironment('never', yaml, { providers: { strict } });
    const checked = await checkEnvironment('never', yaml, { providers: { strict } });

    expect(json(opened.environment)).toEqual({ checked: 80, open0: '[unknown]', open1: '[unknown]', open2: '[unknown]', open3: 'opened' });
    expect(opened.diagnostics).toEqual([]);
    expect(checked.diagnostics).toEqual([]);
    expect(strict.open).toHaveBeenCalledTimes(1);
  });
});

describe('rotation', () => {
  const counter: EscRotator = {
    inputSchema: true,
    stateSchema: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] },
    open: async (_inputs, state) => ({ value: state ?? {} }),
    rotate: async (_inputs, state) => ({ value: { n: { value: Number(state?.n.value ?? 0) + 1 } } }),
  };

  it('rotates only the rotators at the given paths and returns their new state as patches', async () => {
    const yaml = 'values:\n  a:\n    fn::rotate::counter: { inputs: {}, state: { n: 1 } }\n  b:\n    - fn::rotate::counter: { inputs: {}, state: { n: 5 } }\n';

    const result = await rotateEnvironment('r', yaml, { rotators: { counter }, paths: ['b[0]'] });

    expect(result.diagnostics).toEqual([]);
    expect(json(result.environment)).toEqual({ a: { n: 1 }, b: [{ n: 6 }] });
    expect(result.rotations.map((r) => [r.path, r.status, r.patch?.docPath, r.patch && toJSON(r.patch.replacement, false)])).toEqual([
      ['values.b[0]', 'succeeded', 'values.b[0]["fn::rotate::counter"].state', { n: 6 }],
    ]);
  });

  it('prints Pulumi property paths as document paths', () => {
    expect(formatRotatePath('a.b-c[0]["quoted \\"key\\""].d')).toBe('.a["b-c"][0]["quoted \\"key\\""].d');
  });
});

describe('projections', () => {
  it('gives the stack config, environment variables and files an environment defines', async () => {
    const yaml = [
      'values:',
      '  pulumiConfig:',
      '    aws:region: us-west-2',
      '    dbPassword: { fn::secret: s3cret }',
      '  environmentVariables:',
      '    PORT: 8080',
      '    DEBUG: true',
      '    TOKEN: { fn::secret: abc }',
      '    IGNORED: [1, 2]',
      '  files:',
      '    KUBECONFIG: "apiVersion: v1"',
    ].join('\n');

    const { environment } = await evalEnvironment('proj', yaml);

    expect(Object.fromEntries(Object.entries(pulumiConfig(environment!)).map(([k, v]) => [k, [v.value, v.secret === true]]))).toEqual({
      'aws:region': ['us-west-2', false],
      dbPassword: ['s3cret', true],
    });
    expect(environmentVariables(environment!)).toEqual({ PORT: { value: '8080' }, DEBUG: { value: 'true' }, TOKEN: { value: 'abc', secret: true } });
    expect(files(environment!)).toEqual({ KUBECONFIG: { value: 'apiVersion: v1' } });
  });
});
