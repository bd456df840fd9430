/**
 * A child process for the interrupt tests: runs `up --yes --skip-preview` on the `slow` fixture through
 * `runOperation` with the CLI's interrupt handling, keeping the stack's state in a file (rewritten on every save)
 * and writing how `complete` was called to another file.
 *
 * argv: <state file> <outcome file> <config JSON> [<extra flags JSON>]; env: TESTPROV_WORLD, TESTPROV_LOG.
 */
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { UntypedDeployment } from '../../cli/engine/state/deployment.js';
import { handleInterrupts } from '../../cli/engine/interrupts.js';
import type { StackConfig } from '../../cli/engine/config/program-config.js';
import { runOperation, type OperationBackend, type OperationFlags } from '../../cli/engine/operation.js';

const [stateFile, outcomeFile, configJson, flagsJson = '{}'] = process.argv.slice(2) as [string, string, string, string?];
const here = import.meta.dirname;

function writeAtomically(file: string, text: string): void {
  writeFileSync(`${file}.tmp`, text);
  renameSync(`${file}.tmp`, file);
}

const backend: OperationBackend = {
  crypter: { encrypt: async (p) => p, decrypt: async (c) => c },
  async begin() {
    return {
      base: existsSync(stateFile) ? (JSON.parse(readFileSync(stateFile, 'utf8')) as UntypedDeployment) : undefined,
      persister: { save: async (c) => writeAtomically(stateFile, c.text) },
      complete: async (outcome) => writeAtomically(outcomeFile, JSON.stringify(outcome)),
    };
  },
};

const interrupts = handleInterrupts({ write: (t) => void process.stderr.write(t) });
process.exitCode = await runOperation({
  command: 'up',
  flags: { yes: true, skipPreview: true, ...(JSON.parse(flagsJson) as OperationFlags) },
  program: { rootDir: join(here, 'fixtures/slow'), project: 'slow', stack: 'dev' },
  config: JSON.parse(configJson) as StackConfig,
  projectPlugins: [{ name: 'testprov', path: join(here, '../fixtures/providers/testprov') }],
  backend,
  write: (t) => void process.stdout.write(t),
  signal: interrupts.signal,
});
interrupts.dispose();
