/**
 * bench cli-startup: wall time of `stackyard stack ls` on local storage (`login --local`, one stack), divided by
 * `node -e 0`, interleaved in the same run, medians of several repetitions. `stackyard --version` is measured the
 * same way and shown alongside.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const bin = fileURLToPath(new URL('../cli/bin/stackyard.js', import.meta.url));
const reps = Number(process.env.BENCH_STARTUP_REPS ?? 15);
const home = mkdtempSync(join(tmpdir(), 'stackyard-bench-home-'));
const project = mkdtempSync(join(tmpdir(), 'stackyard-bench-project-'));
const env = { ...process.env, STACKYARD_HOME: home, PULUMI_CONFIG_PASSPHRASE: 'bench' };

function time(args) {
  const started = process.hrtime.bigint();
  const result = spawnSync(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'], cwd: project, env });
  if (result.status !== 0) throw new Error(`node ${args.join(' ')} exited ${result.status}: ${result.stderr}`);
  return { ms: Number(process.hrtime.bigint() - started) / 1e6, stdout: String(result.stdout) };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
try {
  writeFileSync(join(project, 'Pulumi.yaml'), 'name: bench\nruntime: nodejs\n');
  time([bin, 'login', '--local']);
  time([bin, 'stack', 'init', 'dev']);
  if (!time([bin, 'stack', 'ls']).stdout.includes('dev')) throw new Error('stack ls does not list the stack');
  const bare = [];
  const ls = [];
  const version = [];
  for (let i = 0; i < reps; i += 1) {
    bare.push(time(['-e', '0']).ms);
    ls.push(time([bin, 'stack', 'ls']).ms);
    version.push(time([bin, '--version']).ms);
  }
  const base = median(bare);
  process.stdout.write(
    `bench cli-startup: ${(median(ls) / base).toFixed(2)}x (stackyard stack ls on --local ${median(ls).toFixed(0)} ms / ` +
      `node -e 0 ${base.toFixed(0)} ms; --version ${(median(version) / base).toFixed(2)}x; median of ${reps}; goal <= 1.5)\n`,
  );
} finally {
  rmSync(home, { recursive: true, force: true });
  rmSync(project, { recursive: true, force: true });
}
