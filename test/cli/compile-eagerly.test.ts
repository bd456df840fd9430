/**
 * scripts/compile-eagerly.mjs on a real esbuild bundle: every module wrapper becomes a parenthesized function (which
 * V8 compiles with the file), and the bundle still runs the same.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';
// @ts-expect-error: a build script, plain JavaScript without type declarations
import { compileModuleBodiesEagerly } from '../../scripts/compile-eagerly.mjs';

const dir = mkdtempSync(join(tmpdir(), 'stackyard-compile-eagerly-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** An entry that imports an ES module both statically and lazily (so esbuild wraps it) and requires a CommonJS one. */
async function bundle(): Promise<string> {
  writeFileSync(join(dir, 'counter.cjs'), 'let n = 0;\nmodule.exports = { next: () => (n += 1) };\n');
  writeFileSync(join(dir, 'greeting.mjs'), "import { next } from './counter.cjs';\nexport const greeting = `hello ${next()}`;\nexport function shout() {\n  return greeting.toUpperCase();\n}\n");
  writeFileSync(join(dir, 'entry.mjs'), "import { greeting } from './greeting.mjs';\nexport const first = greeting;\nexport const later = () => import('./greeting.mjs').then((m) => m.shout());\n");
  const result = await build({ entryPoints: [join(dir, 'entry.mjs')], bundle: true, format: 'esm', platform: 'node', write: false });
  return result.outputFiles[0]!.text;
}

describe('compileModuleBodiesEagerly', () => {
  it('turns every module wrapper into a parenthesized function, and the bundle runs the same', async () => {
    // Arrange
    const text = await bundle();
    const wrappersBefore = text.match(/= __(esm|commonJS)\(\{\n {2}"[^"]+"\([^)]*\) \{/g) ?? [];

    // Act
    const eager = compileModuleBodiesEagerly(text) as { text: string; wrappers: number };

    // Assert
    expect(wrappersBefore).toHaveLength(2);
    expect(eager.wrappers).toBe(2);
    expect(eager.text.match(/= __(esm|commonJS)\(\{\n {2}"[^"]+": \(function\([^)]*\) \{/g)).toHaveLength(2);
    expect(eager.text.split('\n')).toHaveLength(text.split('\n').length);
    writeFileSync(join(dir, 'eager.mjs'), eager.text);
    const loaded = (await import(pathToFileURL(join(dir, 'eager.mjs')).href)) as { first: string; later: () => Promise<string> };
    expect(loaded.first).toBe('hello 1');
    expect(await loaded.later()).toBe('HELLO 1');
  });

  it('fails on a wrapper of another shape instead of leaving it lazy', () => {
    // Arrange: a wrapper whose body is closed on the method's own line
    const text = 'var init_x = __esm({\n  "x.mjs"() { run(); }\n});\n';

    // Act / Assert
    expect(() => compileModuleBodiesEagerly(text)).toThrow(/line 1 does not have the shape/);
  });
});
