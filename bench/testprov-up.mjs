// What the engine benchmarks share: an `up` of test/fixtures/programs/bench on the test provider, in a world folder of
// its own (removed after), against the backend the benchmark gives; resolves with the exit code and the time it took.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { runOperation } from '../cli/engine/operation.ts';

const root = resolve(import.meta.dirname, '..');

/** The bench program creating `count` resources. */
export function benchProgram(count) {
  return {
    program: { rootDir: join(root, 'test/fixtures/programs/bench'), project: 'bench', stack: 'bench' },
    config: { 'bench:count': { value: String(count), secret: false } },
  };
}

/** `up` with `flags` (`--yes` always) of the bench program creating `count` resources. */
export async function upOnTestprov({ count, flags, backend }) {
  const world = mkdtempSync(join(tmpdir(), 'stackyard-bench-'));
  const started = performance.now();
  try {
    const code = await runOperation({
      command: 'up',
      flags: { yes: true, ...flags },
      ...benchProgram(count),
      backend,
      write: () => {},
      env: { ...process.env, TESTPROV_WORLD: world },
      projectPlugins: [{ name: 'testprov', path: join(root, 'test/fixtures/providers/testprov') }],
    });
    return { code, ms: performance.now() - started };
  } finally {
    rmSync(world, { recursive: true, force: true });
  }
}
