import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { programLocation } from './language-host.js';

const root = mkdtempSync(join(tmpdir(), 'stackyard-main-'));
mkdirSync(join(root, 'bin'));
writeFileSync(join(root, 'bin', 'index.js'), '');
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("Pulumi.yaml main: where the program runs (Pulumi's getPwdMain)", () => {
  it('runs a program without main from the project folder', () => {
    expect(programLocation({ rootDir: root } as never)).toEqual({ programDir: root, entry: '.' });
  });

  it('runs a main folder from that folder', () => {
    expect(programLocation({ rootDir: root, main: 'bin' } as never)).toEqual({ programDir: join(root, 'bin'), entry: '.' });
  });

  it("runs a main file from the file's folder, entry its base name (codepaths-tsc's main: bin/index.js)", () => {
    expect(programLocation({ rootDir: root, main: 'bin/index.js' } as never)).toEqual({ programDir: join(root, 'bin'), entry: './index.js' });
  });

  it('fails before the program starts when main is not there', () => {
    expect(() => programLocation({ rootDir: root, main: 'src/index.ts' } as never)).toThrow(
      `project 'main' could not be read: stat ${join(root, 'src/index.ts')}: no such file or directory`,
    );
  });
});
