import { describe, expect, it } from 'vitest';
import { UserError } from '../output/errors.js';
import { checkProjectKeys, checkStackFileKeys } from './file-keys.js';

const refusal = (check: () => void): UserError => {
  try {
    check();
  } catch (error) {
    if (error instanceof UserError) return error;
    throw error;
  }
  throw new Error('expected a refusal');
};

describe('project and stack file keys', () => {
  it('accepts every key of Pulumi.yaml that stackyard implements', () => {
    const project = { name: 'p', runtime: { name: 'nodejs', options: { typescript: false } }, main: 'src', description: 'd', author: 'a', website: 'w', license: 'MIT', config: {}, stackConfigDir: 'stacks', options: { refresh: 'always' }, plugins: {}, template: {} };

    expect(() => checkProjectKeys('Pulumi.yaml', project)).not.toThrow();
    expect(() => checkStackFileKeys('Pulumi.dev.yaml', { config: {}, secretsprovider: 'x', encryptedkey: 'y', encryptionsalt: 'z' })).not.toThrow();
  });

  it.each([
    ['runtime: yaml', 'yaml'],
    ['runtime: { name: yaml }', { name: 'yaml' }],
  ])('accepts the program keys of a Pulumi YAML project (%s), which its language plugin reads', (_, runtime) => {
    const program = { resources: { a: { type: 't:a:A' } }, variables: {}, outputs: {}, pulumi: {}, components: {}, configuration: {} };

    expect(() => checkProjectKeys('Pulumi.yaml', { name: 'p', runtime, ...program })).not.toThrow();
  });

  it('refuses a Pulumi YAML program key in a project of another runtime', () => {
    const error = refusal(() => checkProjectKeys('Pulumi.yaml', { name: 'p', runtime: 'nodejs', resources: {} }));

    expect(error.message).toMatch(/`resources` is not a key stackyard implements/);
  });

  it.each([
    ['backend', { backend: { url: 'file://~' } }, /`backend`: choosing the backend from the project file is not supported/, /stackyard login <url>/],
    ['packages', { packages: { foo: 'x' } }, /`packages`: packages .* are not supported/, /Remove `packages:`/],
    ['requiredPulumiVersion', { requiredPulumiVersion: '>=3' }, /`requiredPulumiVersion`/, /Remove `requiredPulumiVersion:`/],
    ['options.other', { options: { refresh: 'always', other: 1 } }, /`options.other` is not a key stackyard implements/, /Remove or rename `options.other`/],
    ['a key outside Pulumi\'s schema', { runtim: 'nodejs' }, /`runtim` is not a key stackyard implements \(it reads `name`, `runtime`/, /Remove or rename `runtim`/],
  ])('refuses %s in Pulumi.yaml, naming it and the way out', (_, extra, message, hint) => {
    const error = refusal(() => checkProjectKeys('/p/Pulumi.yaml', { name: 'p', runtime: 'nodejs', ...extra }));

    expect(error.message).toMatch(/^\/p\/Pulumi.yaml: /);
    expect(error.message).toMatch(message);
    expect(error.hint).toMatch(hint);
  });

  it('accepts environment: in a stack file (ESC imports) and refuses a misspelling of it', () => {
    const misspelt = refusal(() => checkStackFileKeys('Pulumi.dev.yaml', { environments: ['team/dev'] }));

    expect(() => checkStackFileKeys('Pulumi.dev.yaml', { environment: ['team/dev'], config: {} })).not.toThrow();
    expect(misspelt.message).toMatch(/^Pulumi.dev.yaml: `environments` is not a key stackyard implements/);
  });
});
