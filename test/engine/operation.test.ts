import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { UntypedDeployment } from '../../cli/engine/deployment.js';
import { OperationUsageError, runOperation, type OperationBackend, type OperationCommand, type OperationFlags } from '../../cli/engine/operation.js';
import { FIXTURES, TESTPROV_DIR, testCrypter } from './engine-harness.js';

const PROGRAM = join(FIXTURES, 'programs/scenario');

/** A backend keeping one stack's state in memory and recording the operations it was asked for. */
function memoryBackend() {
  const log: string[] = [];
  let state: UntypedDeployment | undefined;
  const backend: OperationBackend = {
    crypter: testCrypter(),
    async begin(kind, dryRun) {
      log.push(`begin ${kind}${dryRun ? ' (dry run)' : ''}`);
      return {
        base: state,
        persister: dryRun ? undefined : { save: async (c) => void (state = JSON.parse(c.text) as UntypedDeployment) },
        complete: async (o) => void log.push(`complete ${kind} ${o.ok ? 'ok' : 'failed'}`),
      };
    },
  };
  return { backend, log, state: () => state };
}

async function run(backend: OperationBackend, command: OperationCommand, flags: OperationFlags, step = 1) {
  let out = '';
  const code = await runOperation({
    command,
    flags,
    program: { rootDir: PROGRAM, project: 'scenario', stack: 'op' },
    config: { 'scenario:step': { value: String(step), secret: false } },
    projectPlugins: [{ name: 'testprov', path: TESTPROV_DIR }],
    backend,
    write: (t) => (out += t),
  });
  return { code, out };
}

describe('runOperation', () => {
  it('refuses to update without --yes when it cannot ask', async () => {
    const m = memoryBackend();
    await expect(run(m.backend, 'up', {})).rejects.toThrow(OperationUsageError);
    expect(m.state()).toBeUndefined();
  }, 30_000);

  it('previews, updates, honours --expect-no-changes and destroys', async () => {
    const m = memoryBackend();
    const up = await run(m.backend, 'up', { yes: true });
    expect(up.code).toBe(0);
    expect(up.out).toContain('Previewing update');
    expect(up.out).toMatch(/\+ \d+ created/);
    expect(m.log.slice(0, 4)).toEqual(['begin preview (dry run)', 'complete preview ok', 'begin update', 'complete update ok']);

    const same = await run(m.backend, 'preview', { expectNoChanges: true });
    expect(same.code).toBe(0);
    const changed = await run(m.backend, 'preview', { expectNoChanges: true }, 2);
    expect(changed.code).toBe(1);
    expect(changed.out).toContain('no changes were expected');

    const destroy = await run(m.backend, 'destroy', { yes: true, skipPreview: true });
    expect(destroy.code).toBe(0);
    expect((m.state()?.deployment as { resources?: unknown[] }).resources ?? []).toEqual([]);
    expect(m.log.at(-1)).toBe('complete destroy ok');
  }, 60_000);
});
