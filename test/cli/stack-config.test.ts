/** `Pulumi.<stack>.yaml` handling: key and path parsing as `pulumi config` does, edits that keep the rest of the file. */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { UserError } from '../../cli/output/errors.js';
import { parseConfigKey, parsePropertyPath, StackConfigFile, typedPathValue } from '../../cli/project/stack-config.js';

const root = mkdtempSync(join(tmpdir(), 'stackyard-config-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const file = (text: string) => {
  const path = join(mkdtempSync(join(root, 'case-')), 'Pulumi.dev.yaml');
  writeFileSync(path, text);
  return path;
};

describe('config keys', () => {
  it('puts plain names in the project namespace and keeps explicit namespaces', () => {
    expect(parseConfigKey('region', 'demo', false)).toEqual({ key: 'demo:region', path: [] });
    expect(parseConfigKey('aws:region', 'demo', false)).toEqual({ key: 'aws:region', path: [] });
    expect(parseConfigKey('aws:config:region', 'demo', false)).toEqual({ key: 'aws:region', path: [] });
  });

  it('reads a path only with --path', () => {
    expect(parseConfigKey('db.port', 'demo', false)).toEqual({ key: 'demo:db.port', path: [] });
    expect(parseConfigKey('db.hosts[1]', 'demo', true)).toEqual({ key: 'demo:db', path: ['hosts', 1] });
  });

  it('parses quoted segments that contain dots', () => {
    expect(parsePropertyPath('["parent.name"]["nested.name"]')).toEqual(['parent.name', 'nested.name']);
    expect(parsePropertyPath('a.b[0].c')).toEqual(['a', 'b', 0, 'c']);
  });

  it('refuses malformed keys and paths', () => {
    expect(() => parseConfigKey('a:b:c', 'demo', false)).toThrow(UserError);
    expect(() => parsePropertyPath('a[x]')).toThrow(UserError);
    expect(() => parsePropertyPath('a..b')).toThrow(UserError);
  });

  it('types path values like pulumi: true/false and whole numbers, everything else a string', () => {
    expect([typedPathValue('true'), typedPathValue('false'), typedPathValue('42'), typedPathValue('-7')]).toEqual([true, false, 42, -7]);
    expect([typedPathValue('007'), typedPathValue('1.5'), typedPathValue('yes')]).toEqual(['007', '1.5', 'yes']);
  });
});

describe('StackConfigFile', () => {
  it('sets and removes values without touching comments or other top-level keys', async () => {
    const path = file('# team settings\nsecretsprovider: default\nconfig:\n  demo:keep: yes # do not change\n');
    const config = await StackConfigFile.load(path);

    config.set({ key: 'demo:password', path: [] }, { secure: 'AAAB' });
    config.set({ key: 'demo:db', path: ['hosts', 0] }, 'h1');
    await config.save();

    expect(readFileSync(path, 'utf8')).toBe(
      '# team settings\nsecretsprovider: default\nconfig:\n  demo:keep: yes # do not change\n  demo:password:\n    secure: AAAB\n  demo:db:\n    hosts:\n      - h1\n',
    );
  });

  it('removes a list item by shifting the rest, as pulumi config rm --path does', async () => {
    const config = await StackConfigFile.load(file('config:\n  demo:names:\n    - a\n    - b\n    - c\n'));

    const removed = config.remove({ key: 'demo:names', path: [1] });

    expect(removed).toBe(true);
    expect(config.get({ key: 'demo:names', path: [] })).toEqual(['a', 'c']);
    expect(config.remove({ key: 'demo:missing', path: [] })).toBe(false);
  });

  it('refuses a path through a value that is not a map or list', async () => {
    const config = await StackConfigFile.load(file('config:\n  demo:db: plain\n'));

    expect(() => config.set({ key: 'demo:db', path: ['port'] }, 1)).toThrow("configuration value 'demo:db' is not a map");
  });

  it('treats a missing file as empty and a broken one as a clear error', async () => {
    const missing = await StackConfigFile.load(join(root, 'Pulumi.x.yaml'));

    expect(missing.exists).toBe(false);
    expect(missing.entries()).toEqual([]);
    await expect(StackConfigFile.load(file('config: [1, 2'))).rejects.toThrow('is not valid YAML');
    await expect(StackConfigFile.load(file('config: [1, 2]\n'))).rejects.toThrow('`config` must be a mapping');
  });

  it('reads `environment:` (Pulumi ESC imports, in order) and refuses any key it does not implement, naming the key', async () => {
    const esc = await StackConfigFile.load(file('environment:\n  - team/dev\n  - prod\nconfig:\n  demo:a: 1\n'));
    const notAList = await StackConfigFile.load(file('environment: team/dev\n'));
    const unknown = file('secretsprovider: default\nconfigs:\n  demo:a: 1\n');

    expect(esc.environments()).toEqual(['team/dev', 'prod']);
    expect(() => notAList.environments()).toThrow('`environment` must be a list of environment names');
    await expect(StackConfigFile.load(unknown)).rejects.toThrow(/`configs` is not a key stackyard implements/);
  });
});
