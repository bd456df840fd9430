/**
 * `stack graph` through the bundled CLI on `login --local`: the stack's state as Pulumi's DOT, with its flags
 * (needs `npm run build`; the DOT layout itself is cli/commands/stack-graph.test.ts).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CliSandbox, removeSandboxes } from './cli-harness.js';

const urn = (type: string, name: string) => `urn:pulumi:dev::demo::${type}::${name}`;
const ROOT = urn('pulumi:pulumi:Stack', 'demo-dev');
const A = urn('test:index:Thing', 'a');
const B = urn('test:index:Thing', 'b');
const STATE = {
  version: 3,
  deployment: {
    manifest: { time: '2026-01-01T00:00:00.000Z', magic: '', version: '' },
    resources: [
      { urn: ROOT, custom: false, type: 'pulumi:pulumi:Stack' },
      { urn: A, custom: true, id: 'a-1', type: 'test:index:Thing', parent: ROOT },
      { urn: B, custom: true, id: 'b-1', type: 'test:index:Thing', parent: ROOT, dependencies: [A], propertyDependencies: { input: [A] } },
    ],
  },
};

describe('stack graph', () => {
  const sandbox = new CliSandbox();
  let project: string;
  const cli = (...args: string[]) => sandbox.run(project, args);

  beforeAll(async () => {
    project = sandbox.project('demo', 'name: demo\nruntime: nodejs\n');
    writeFileSync(join(sandbox.root, 'state.json'), JSON.stringify(STATE));
    await cli('login', '--local');
    await cli('stack', 'init', 'dev');
    await cli('stack', 'import', '--file', join(sandbox.root, 'state.json'));
  });
  afterAll(removeSandboxes);

  it('writes the dependency and parent edges in Pulumi\'s colors and says where', async () => {
    const result = await cli('stack', 'graph', 'out.dot');

    expect(result.status, result.stderr).toBe(0);
    expect(result.stderr).toBe('Wrote stack dependency graph to `out.dot`\n');
    expect(readFileSync(join(project, 'out.dot'), 'utf8')).toBe(
      [
        'strict digraph {',
        `    Resource0 [label="${ROOT}"];`,
        `    Resource1 [label="${A}"];`,
        '    Resource1 -> Resource0 [color = "#AA6639"];',
        '    Resource1 -> Resource2 [color = "#246C60", label = "input"];',
        `    Resource2 [label="${B}"];`,
        '    Resource2 -> Resource0 [color = "#AA6639"];',
        '}',
        '',
      ].join('\n'),
    );
  });

  it('takes short names, its own colors and fragment, and leaves out either kind of edge', async () => {
    const deps = await cli('stack', 'graph', 'deps.dot', '-s', 'dev', '--ignore-parent-edges', '--short-node-name', '--dependency-edge-color', 'red', '--dot-fragment', 'rankdir=LR;');
    const parents = await cli('stack', 'graph', 'parents.dot', '--ignore-dependency-edges', '--parent-edge-color', 'blue');

    expect([deps.status, parents.status]).toEqual([0, 0]);
    expect(readFileSync(join(project, 'deps.dot'), 'utf8')).toBe(
      'strict digraph {\nrankdir=LR;\n    Resource0 [label="demo-dev"];\n    Resource1 [label="a"];\n    Resource1 -> Resource2 [color = "red", label = "input"];\n    Resource2 [label="b"];\n}\n',
    );
    expect(readFileSync(join(project, 'parents.dot'), 'utf8')).not.toContain('#246C60');
    expect(readFileSync(join(project, 'parents.dot'), 'utf8').match(/color = "blue"/g)).toHaveLength(2);
  });

  it('names a stack that does not exist', async () => {
    const result = await cli('stack', 'graph', 'x.dot', '-s', 'nope');

    expect(result.status).toBe(1);
    expect(result.stderr).toContain("error: no stack named 'nope' found");
  });
});
