/**
 * `destroy --exclude-protected` ends as `pulumi destroy` does (pkg/cmd/pulumi/operations/destroy.go): it counts the
 * protected resources and all they depend on before running, destroys the rest, prints no outputs as if they were
 * kept, and says how many stay; when nothing is left to destroy it says so and runs nothing.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { UntypedDeployment } from '../../cli/engine/state/deployment.js';
import { runOperation, type OperationBackend, type OperationCommand, type OperationFlags } from '../../cli/engine/operation.js';
import { TESTPROV_DIR, testCrypter } from './engine-harness.js';

const PROGRAM = join(import.meta.dirname, '../fixtures/programs/display');

/** One stack's state in memory; counts the operations begun. */
function memoryBackend() {
  let state: UntypedDeployment | undefined;
  let begun = 0;
  const backend: OperationBackend = {
    crypter: testCrypter(),
    banner: { stack: 'dev', style: 'local' },
    currentState: async () => state,
    async begin(_kind, dryRun) {
      begun++;
      return {
        base: state,
        persister: dryRun ? undefined : { save: async (c) => void (state = JSON.parse(c.text) as UntypedDeployment) },
        complete: async () => undefined,
      };
    },
  };
  return { backend, begun: () => begun, urns: () => ((state?.deployment as { resources?: { urn: string }[] }).resources ?? []).map((r) => r.urn.split('::').at(-1)) };
}

async function run(backend: OperationBackend, command: OperationCommand, flags: OperationFlags, step: number) {
  let out = '';
  const code = await runOperation({
    command,
    flags,
    program: { rootDir: PROGRAM, project: 'display', stack: 'dev' },
    config: { 'display:step': { value: String(step), secret: false } },
    projectPlugins: [{ name: 'testprov', path: TESTPROV_DIR }],
    backend,
    write: (t) => (out += t),
  });
  return { code, out };
}

describe('destroy --exclude-protected', () => {
  it('destroys the unprotected resources, says how many stay, then that nothing is left to destroy', async () => {
    const m = memoryBackend();
    expect((await run(m.backend, 'up', { yes: true, skipPreview: true }, 3)).code).toBe(0);

    const first = await run(m.backend, 'destroy', { yes: true, excludeProtected: true }, 3);
    const begunBefore = m.begun();
    const second = await run(m.backend, 'destroy', { yes: true, excludeProtected: true }, 3);

    expect(first.code).toBe(0);
    // a, the stack (its parent) and the default provider (its provider) stay
    expect(m.urns().sort()).toEqual(['a', 'default', 'display-dev']);
    expect(first.out).toContain('    - 2 deleted\n');
    expect(first.out).not.toContain('Outputs:');
    expect(first.out.endsWith('All unprotected resources were destroyed. There are still 3 protected resources associated with this stack.\n')).toBe(true);
    expect(second).toEqual({ code: 0, out: 'There were no unprotected resources to destroy. There are still 3 protected resources associated with this stack.\n' });
    expect(m.begun()).toBe(begunBefore);
  }, 90_000);

  it('says the stack is kept after a whole destroy, and how to remove it', async () => {
    const m = memoryBackend();
    expect((await run(m.backend, 'up', { yes: true, skipPreview: true }, 1)).code).toBe(0);

    const destroyed = await run(m.backend, 'destroy', { yes: true, skipPreview: true }, 1);

    expect(destroyed.code).toBe(0);
    expect(destroyed.out.endsWith(
      'The resources in the stack have been deleted, but the history and configuration associated with the stack are still maintained. \n' +
        'If you want to remove the stack completely, run `stackyard stack rm dev`.\n',
    )).toBe(true);
  }, 90_000);
});
