/**
 * `stackyard import` and `preview --import-file` through the bundled CLI on `login --local` (needs `npm run build`),
 * from Pulumi's pkg/cmd/pulumi/operations/import.go and preview.go and pkg/resource/deploy/import.go: resources that
 * exist in the test provider's world are adopted through its Read (its schema shapes the generated TypeScript, its
 * SDK is test/fixtures/providers/testprov-sdk), and the generated program, run as the program, changes nothing.
 */
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SECRET_SIG, SIG_KEY } from '../../cli/engine/resource/properties.js';
import { changeInWorld } from '../support/testprov-world.js';
import { CliSandbox, REPO, removeSandboxes } from './cli-harness.js';

interface StateResource {
  urn: string;
  type: string;
  id?: string;
  parent?: string;
  provider?: string;
  protect?: boolean;
  inputs?: Record<string, unknown>;
}

const PROVIDER = join(REPO, 'test/fixtures/providers/testprov-import');
const THING = 'testprov:index:Thing';

const pulumiYaml = (name: string, typescript: boolean) =>
  `name: ${name}\nruntime:\n  name: nodejs\n  options:\n    typescript: ${typescript}\nmain: ${typescript ? 'index.ts' : 'index.js'}\n` +
  `plugins:\n  providers:\n    - name: testprov\n      path: ${PROVIDER}\n`;

describe('stackyard import and preview --import-file', () => {
  const sandbox = new CliSandbox();
  const world = join(sandbox.root, 'world');
  const env = { TESTPROV_WORLD: world };

  /** A project on its own stack `dev`; `cli` runs in it. */
  const project = async (name: string, files: Record<string, string>, typescript = false) => {
    const dir = sandbox.project(name, pulumiYaml(name, typescript), files);
    const cli = (...args: string[]) => sandbox.run(dir, args, { env });
    await cli('stack', 'init', 'dev');
    const resources = async () => (JSON.parse((await cli('stack', 'export')).stdout) as { deployment: { resources?: StateResource[] } }).deployment.resources ?? [];
    return { dir, cli, resources };
  };

  /** A resource in the provider's world, as if created outside Pulumi. */
  const existing = (id: string, inputs: Record<string, unknown>) => changeInWorld(world, id, { ...inputs, createdBy: 'testprov', serial: 1 } as never);

  beforeAll(async () => {
    mkdirSync(world);
    // the package's SDK where the projects' programs find it (a folder above their node_modules)
    mkdirSync(join(sandbox.root, 'node_modules/@pulumi'), { recursive: true });
    symlinkSync(join(REPO, 'test/fixtures/providers/testprov-sdk'), join(sandbox.root, 'node_modules/@pulumi/testprov'), 'dir');
    await sandbox.run(sandbox.root, ['login', '--local']);
  });
  afterAll(removeSandboxes);

  it('imports 50 resources from a file; `up` of the generated program then changes nothing', async () => {
    // Prepare: 50 resources of several shapes, a secret among them
    const ids = Array.from({ length: 50 }, (_, i) => `thing-${i}`);
    ids.forEach((id, i) =>
      existing(id, {
        value: i,
        label: `thing number ${i}`,
        tags: { index: String(i), 'team-name': 'infra' },
        items: i % 2 ? ['a', 'b'] : [],
        ...(i % 5 === 0 ? { size: { width: i, height: 2 } } : {}),
        ...(i % 7 === 0 ? { password: { [SIG_KEY]: SECRET_SIG, value: `pw-${i}` } } : {}),
      }),
    );
    const { dir, cli, resources } = await project('fifty', { 'index.ts': '' }, true);
    writeFileSync(join(dir, 'import.json'), JSON.stringify({ resources: ids.map((id) => ({ type: THING, name: id, id })) }));

    // Act
    const imported = await cli('import', '--file', 'import.json', '--yes', '--out', 'index.ts');
    const state = await resources();
    const up = await cli('up', '--skip-preview', '--expect-no-changes');

    // Assess
    expect(imported.status, imported.stderr).toBe(0);
    expect(imported.stdout).toMatch(/^Previewing import \(dev\):\n/);
    expect(imported.stdout).toContain('\nImporting (dev):\n');
    expect(imported.stdout).toContain('= 50 imported');
    const things = state.filter((r) => r.type === THING);
    expect(things.map((r) => r.id)).toEqual(ids);
    expect(things.every((r) => r.protect === true)).toBe(true);
    expect(things[3]!.inputs).toEqual({ value: 3, label: 'thing number 3', tags: { index: '3', 'team-name': 'infra' }, items: ['a', 'b'] });
    expect(JSON.stringify(state)).not.toContain('pw-7');
    const code = readFileSync(join(dir, 'index.ts'), 'utf8');
    expect(code).toContain('import * as testprov from "@pulumi/testprov";');
    expect(code).toContain('const thing_7 = new testprov.Thing("thing-7", {\n    items: [\n        "a",\n        "b",\n    ],\n');
    expect(code).toContain('    password: pulumi.secret("pw-7"),\n    tags: {\n        index: "7",\n        "team-name": "infra",\n    },\n    value: 7,\n}, {\n    protect: true,\n});');
    expect(up.status, up.stdout + up.stderr).toBe(0);
    expect(up.stdout).toContain('51 unchanged');
  });

  it('imports one resource from the command line, then refuses a file naming an unknown id and records nothing', async () => {
    // Prepare
    existing('single-1', { value: 1, label: 'one', tags: { a: 'b' } });
    existing('other-2', { value: 2 });
    const { dir, cli, resources } = await project('adopt', { 'index.js': '' });
    writeFileSync(
      join(dir, 'import.json'),
      JSON.stringify({ resources: [{ type: THING, name: 'other', id: 'other-2' }, { type: THING, name: 'ghost', id: 'no-such-id' }] }),
    );

    // Act
    const single = await cli('import', THING, 'single', 'single-1', '--yes', '--protect=false', '--properties', 'value,label', '-m', 'adopt it');
    const before = await cli('stack', 'export');
    const failed = await cli('import', '--file', 'import.json', '--yes');
    const after = await cli('stack', 'export');
    const history = JSON.parse((await cli('stack', 'history', '--json')).stdout) as { kind: string; message: string }[];

    // Assess
    expect(single.status, single.stderr).toBe(0);
    expect(single.stdout).toContain(
      'Please copy the following code into your Pulumi application. Not doing so\nwill cause Pulumi to report that an update will happen on the next update command.\n\n' +
        'import * as pulumi from "@pulumi/pulumi";\nimport * as testprov from "@pulumi/testprov";\n\n' +
        'const single = new testprov.Thing("single", {\n    label: "one",\n    value: 1,\n});\n',
    );
    const adopted = (await resources()).find((r) => r.type === THING)!;
    expect(adopted).toMatchObject({ id: 'single-1', inputs: { value: 1, label: 'one' } });
    expect(adopted.protect).toBeUndefined();
    expect(failed.status).toBe(1);
    expect(failed.stdout).toContain("error: resource 'no-such-id' does not exist");
    expect(failed.stdout).not.toContain('Importing (dev)');
    expect(after.stdout).toBe(before.stdout);
    expect(history.map((h) => [h.kind, h.message])).toEqual([['resource-import', 'adopt it']]);
  });

  it('imports under a parent and with an explicit provider named by --parent and --provider', async () => {
    // Prepare: a program holding a component and a provider
    existing('child-1', { value: 9 });
    const program =
      "const pulumi = require('@pulumi/pulumi');\nconst testprov = require('@pulumi/testprov');\n" +
      "new testprov.Provider('prov', { region: 'eu' });\nnew pulumi.ComponentResource('my:index:Group', 'g');\n";
    const { cli, resources } = await project('parented', { 'index.js': program });
    await cli('up', '--yes', '--skip-preview');
    const [g, prov] = ['my:index:Group', 'pulumi:providers:testprov'].map((t) => resources().then((rs) => rs.find((r) => r.type === t)!));
    const [gUrn, provUrn] = [(await g).urn, (await prov).urn];

    // Act
    const preview = await cli('import', THING, 'child', 'child-1', '--parent', `g=${gUrn}`, '--provider', `prov=${provUrn}`, '--preview-only', '--generate-code=false', '--out', 'unused.ts');
    const imported = await cli('import', THING, 'child', 'child-1', '--parent', `g=${gUrn}`, '--provider', `prov=${provUrn}`, '--skip-preview');

    // Assess
    expect(preview.status, preview.stderr).toBe(0);
    expect(preview.stderr).toContain('Output file will not be used as --generate-code is false.');
    expect(imported.status, imported.stderr).toBe(0);
    const child = (await resources()).find((r) => r.type === THING)!;
    expect(child.urn).toBe(`urn:pulumi:dev::parented::my:index:Group$${THING}::child`);
    expect(child.parent).toBe(gUrn);
    expect(child.provider).toBe(`${provUrn}::${(await prov).id}`);
    expect(imported.stdout).toContain('const child = new testprov.Thing("child", {\n    value: 9,\n}, {\n    parent: g,\n    provider: prov,\n    protect: true,\n});\n');
  });

  it("preview --import-file writes Pulumi's import file for the resources the preview would create", async () => {
    // Prepare
    const program =
      "const pulumi = require('@pulumi/pulumi');\n" +
      "class Thing extends pulumi.CustomResource { constructor(n, a, o) { super('testprov:index:Thing', n, a, o); } }\n" +
      "const prov = new pulumi.ProviderResource('testprov', 'prov', { region: 'eu' });\n" +
      "const g = new pulumi.ComponentResource('my:index:Group', 'g');\n" +
      "new Thing('a', { value: 1 }, { parent: g, provider: prov });\nnew Thing('b', { value: 2 }, { dependsOn: [g] });\n";
    const { dir, cli } = await project('planned', { 'index.js': program });

    // Act
    const preview = await cli('preview', '--import-file', 'import.json');

    // Assess
    expect(preview.status, preview.stderr).toBe(0);
    const text = readFileSync(join(dir, 'import.json'), 'utf8');
    expect(text).toMatch(/^\{\n {4}"resources": \[\n/);
    const file = JSON.parse(text) as { nameTable?: unknown; resources: unknown[] };
    expect(file.nameTable).toBeUndefined();
    expect(file.resources).toHaveLength(4);
    expect(file.resources).toEqual(
      expect.arrayContaining([
        { type: 'pulumi:providers:testprov', name: 'prov', inputs: { region: 'eu' } },
        { type: 'my:index:Group', name: 'g', component: true },
        { type: THING, name: 'a', id: '<PLACEHOLDER>', parent: 'g', provider: 'prov' },
        { type: THING, name: 'b', id: '<PLACEHOLDER>' },
      ]),
    );
  });
});
