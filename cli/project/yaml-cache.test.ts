import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { parseYamlCached } from './yaml-cache.js';

const homes: string[] = [];
afterEach(() => homes.splice(0).forEach((home) => rmSync(home, { recursive: true, force: true })));

function home(): { env: NodeJS.ProcessEnv; cached: () => string[] } {
  const dir = mkdtempSync(join(tmpdir(), 'stackyard-yaml-cache-'));
  homes.push(dir);
  const folder = join(dir, 'cache', 'yaml');
  return { env: { STACKYARD_HOME: dir }, cached: () => (existsSync(folder) ? readdirSync(folder) : []) };
}

describe('parseYamlCached', () => {
  it('gives what parse gives, from the cache the second time', async () => {
    const { env, cached } = home();
    const text = 'name: web\nruntime:\n  name: nodejs\n  options: { typescript: false }\nversion: 2\nlist: [a, 1, null, true]\n';

    const first = await parseYamlCached(text, env);
    const second = await parseYamlCached(text, env);

    expect(first).toEqual(parse(text));
    expect(second).toEqual(parse(text));
    expect(cached()).toHaveLength(1);
    // What the second read returns comes from the stored file, not from parsing again.
    writeFileSync(join(env.STACKYARD_HOME!, 'cache', 'yaml', cached()[0]!), JSON.stringify({ value: { name: 'stored' } }));
    expect(await parseYamlCached(text, env)).toEqual({ name: 'stored' });
  });

  it('parses a changed text again instead of answering the old one', async () => {
    const { env, cached } = home();
    await parseYamlCached('name: one\n', env);

    expect(await parseYamlCached('name: two\n', env)).toEqual({ name: 'two' });
    expect(cached()).toHaveLength(2);
  });

  it('does not store values JSON would change, and still returns them', async () => {
    const { env, cached } = home();

    expect(await parseYamlCached('limit: .inf\n', env)).toEqual({ limit: Infinity });
    expect(cached()).toEqual([]);
  });

  it('does not store a text the parser warns about, so the warning is printed on every read', async () => {
    const { env, cached } = home();
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(warning.message);
    process.on('warning', onWarning);
    try {
      await parseYamlCached('name: !custom web\n', env);
      await parseYamlCached('name: !custom web\n', env);
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off('warning', onWarning);
    }

    expect(cached()).toEqual([]);
    expect(warnings.filter((message) => message.includes('Unresolved tag: !custom'))).toHaveLength(2);
  });

  it('treats an unreadable cache file as a miss, and throws parse errors as parse does', async () => {
    const { env, cached } = home();
    await parseYamlCached('name: web\n', env);
    writeFileSync(join(env.STACKYARD_HOME!, 'cache', 'yaml', cached()[0]!), '{"val');

    expect(await parseYamlCached('name: web\n', env)).toEqual({ name: 'web' });
    await expect(parseYamlCached('name: [unclosed\n', env)).rejects.toThrow(/flow sequence|Missing|unclosed|end/i);
  });

  it('never creates $STACKYARD_HOME', async () => {
    const missing = join(tmpdir(), `stackyard-absent-${process.pid}-${Date.now()}`);

    expect(await parseYamlCached('name: web\n', { STACKYARD_HOME: missing })).toEqual({ name: 'web' });
    expect(existsSync(missing)).toBe(false);
  });
});
