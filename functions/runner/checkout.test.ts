import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { create } from 'tar';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ClaimedRun, RunnerService } from '../../shared/core/deployments/runner-service.js';
import { checkoutSource } from './checkout.js';

async function tarOf(dir: string, files: string[]): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of create({ gzip: true, cwd: dir, portable: true }, files)) chunks.push(Buffer.from(chunk as Uint8Array));
  return Buffer.concat(chunks);
}

describe('checkoutSource of an uploaded archive', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'stackyard-checkout-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const claimedWith = (archive: Buffer) => {
    const runner = { sourceArchive: async () => archive } as unknown as RunnerService;
    const claimed = { run: {}, source: { archive: { id: 'a', sha256: 'b' } } } as unknown as ClaimedRun;
    const workspace = join(dir, 'work');
    mkdirSync(workspace);
    const lines: string[] = [];
    const noStep = async () => {
      throw new Error('an archive runs no command');
    };
    return { run: () => checkoutSource(runner, claimed, workspace, (line) => lines.push(line), noStep), lines, workspace };
  };

  it('unpacks files and folders into the project folder, running no command', async () => {
    mkdirSync(join(dir, 'in/lib'), { recursive: true });
    writeFileSync(join(dir, 'in/Pulumi.yaml'), 'name: p\n');
    writeFileSync(join(dir, 'in/lib/a.js'), 'exports.a = 1;\n');
    const { run, lines, workspace } = claimedWith(await tarOf(join(dir, 'in'), ['Pulumi.yaml', 'lib/a.js']));

    const project = await run();

    expect(project).toBe(join(workspace, 'source'));
    expect(readFileSync(join(project, 'lib/a.js'), 'utf8')).toBe('exports.a = 1;\n');
    expect(lines).toEqual([expect.stringMatching(/^\$ unpack the uploaded program archive \(\d+ bytes\)$/)]);
  });

  it('refuses an archive holding a link, writing nothing of it', async () => {
    mkdirSync(join(dir, 'in'));
    writeFileSync(join(dir, 'in/Pulumi.yaml'), 'name: p\n');
    symlinkSync('/etc/passwd', join(dir, 'in/passwd'));
    const { run, workspace } = claimedWith(await tarOf(join(dir, 'in'), ['Pulumi.yaml', 'passwd']));

    await expect(run()).rejects.toThrow(/^unpack failed: the archive holds passwd, a SymbolicLink: only files and folders are unpacked$/);
    expect(() => readFileSync(join(workspace, 'source/Pulumi.yaml'))).toThrow(/ENOENT/);
  });

  it('refuses what is not a gzip\'d tar', async () => {
    const { run } = claimedWith(Buffer.from('not an archive'));

    await expect(run()).rejects.toThrow(/^unpack failed: the archive is not a gzip'd tar/);
  });
});
