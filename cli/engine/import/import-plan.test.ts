import { describe, expect, it } from 'vitest';
import { planImports } from './import-plan.js';
import { singleResourceFile, type ImportFile } from './import-file.js';

const plain = async (v: Record<string, unknown>) => v as never;
const plan = (file: ImportFile) => planImports(file, 'dev', 'proj', true, plain);

describe('planImports (Pulumi parseImportFile)', () => {
  it('reports every problem of the file at once, in Go multierror form', async () => {
    // Prepare
    const file: ImportFile = {
      resources: [
        { type: '', name: 'a', id: 'x' },
        { type: 'p:m:T', name: 'b' },
        { type: 'pulumi:providers:p', name: 'c', id: 'y' },
        { type: 'p:m:C', name: 'd', id: 'z', component: true, remote: true },
        { type: 'p:m:T', name: 'e', id: 'w', remote: true },
      ],
    };

    // Act
    const run = plan(file);

    // Assess
    await expect(run).rejects.toThrow(
      '5 errors occurred:\n' +
        "\t* resource 'a' has no type\n" +
        "\t* resource 'b' of type 'p:m:T' has no ID\n" +
        "\t* resource 'c' of type 'pulumi:providers:p' has an ID, but is a provider, which is created rather than read\n" +
        "\t* resource 'd' of type 'p:m:C' has an ID, but is marked as a component\n" +
        "\t* resource 'e' of type 'p:m:T' is marked as remote, but not as a component\n\n",
    );
  });

  it('resolves parents named later in the file, and names each URN for the code (unique with its type, then a number)', async () => {
    // Prepare
    const file: ImportFile = {
      nameTable: { site: 'urn:pulumi:dev::proj::my:index:Group::site', web: 'urn:pulumi:dev::proj::my:index:Group::web' },
      resources: [
        { type: 'p:m:Thing', name: 'child', id: '1', parent: 'box' },
        { type: 'p:m:Box', name: 'box', component: true, parent: 'site' },
        { type: 'p:m:Thing', name: 'web', logicalName: 'web-thing', id: '2' },
      ],
    };

    // Act
    const { imports, names } = await plan(file);

    // Assess
    expect(imports.map((i) => [i.name, i.parent])).toEqual([
      ['child', 'urn:pulumi:dev::proj::my:index:Group$p:m:Box::box'],
      ['box', 'urn:pulumi:dev::proj::my:index:Group::site'],
      ['web-thing', undefined],
    ]);
    expect(imports.every((i) => i.protect)).toBe(true);
    expect(Object.fromEntries(names)).toEqual(Object.fromEntries([
      ['urn:pulumi:dev::proj::my:index:Group::site', 'site'],
      ['urn:pulumi:dev::proj::my:index:Group::web', 'web'],
      ['urn:pulumi:dev::proj::my:index:Group$p:m:Box::box', 'box'],
      ['urn:pulumi:dev::proj::my:index:Group$p:m:Box$p:m:Thing::child', 'child'],
      ['urn:pulumi:dev::proj::p:m:Thing::web-thing', 'webThing'],
    ]));
  });

  it('refuses a provider that is not one, and one no table names', async () => {
    // Prepare
    const file = singleResourceFile('p:m:T', 'a', 'id-1', [], 'g=urn:pulumi:dev::proj::my:index:Group::g', 'g2=urn:pulumi:dev::proj::my:index:Group::g2');
    const unnamed: ImportFile = { resources: [{ type: 'p:m:T', name: 'a', id: '1', provider: 'nobody' }] };

    // Act
    const notProvider = plan(file);
    const missing = plan(unnamed);

    // Assess
    await expect(notProvider).rejects.toThrow("the provider 'g2' for resource 'a' of type 'p:m:T' is not a provider");
    await expect(missing).rejects.toThrow("the provider 'nobody' for resource 'a' of type 'p:m:T' has no entry in 'nameTable' or 'resources'");
  });

  it("refuses what stackyard does not import yet rather than ignoring it", async () => {
    // Act
    const run = plan({ resources: [{ type: 'p:m:T', name: 'a', id: '1', outputs: { x: 1 } }] });

    // Assess
    await expect(run).rejects.toThrow("resource 'a' of type 'p:m:T' has 'outputs', which stackyard does not import yet");
  });
});
