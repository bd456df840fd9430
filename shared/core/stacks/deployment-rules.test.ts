import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../errors.js';
import { sampleDeployment, urnOf } from '../../../test/support/deployment-fixtures.js';
import { countResources, holdsResources, renameDeployment, validateDeployment } from './deployment-rules.js';
import type { UntypedDeployment } from '../checkpoints/types.js';

const REF = { org: 'acme', project: 'web', stack: 'dev' };

function resources(deployment: UntypedDeployment): Record<string, unknown>[] {
  return deployment.deployment.resources as Record<string, unknown>[];
}

function withResources(list: Record<string, unknown>[]): UntypedDeployment {
  return { version: 3, deployment: { manifest: { time: '', magic: '', version: '' }, resources: list } };
}

describe('validateDeployment', () => {
  it('accepts a CLI-shaped deployment and reports its size and pending operations', () => {
    const result = validateDeployment(sampleDeployment(REF));

    expect(result.resourceCount).toBe(4);
    expect(result.pendingOperations).toEqual([{ urn: urnOf(REF, 'aws:s3/bucket:Bucket', 'logs'), type: 'creating' }]);
    expect(result.deployment).toEqual(sampleDeployment(REF));
  });

  it.each([
    ['parent', { parent: urnOf(REF, 'pulumi:pulumi:Stack', 'later') }],
    ['dependency', { dependencies: [urnOf(REF, 'x:y:Z', 'nowhere')] }],
    ['dependency (of property', { propertyDependencies: { p: [urnOf(REF, 'x:y:Z', 'nowhere')] } }],
    ['provider', { provider: `${urnOf(REF, 'pulumi:providers:aws', 'nowhere')}::id` }],
    ['deletedWith resource', { deletedWith: urnOf(REF, 'x:y:Z', 'nowhere') }],
  ])('names the resource and the missing %s', (what, reference) => {
    const child = urnOf(REF, 'x:y:Child', 'child');
    const deployment = withResources([{ urn: child, custom: true, type: 'x:y:Child', ...reference }]);

    let error: unknown;
    try {
      validateDeployment(deployment);
    } catch (caught) {
      error = caught;
    }

    expect(error).toBeInstanceOf(InvalidInputError);
    const message = (error as Error).message;
    expect(message).toContain(child);
    expect(message).toContain(`refers to ${what}`);
    const target = JSON.stringify(reference).match(/urn:pulumi:[^"]*/)![0]!.replace(/::id$/, '');
    expect(message).toContain(target);
  });

  it('refuses a reference to a resource that comes later', () => {
    const parent = urnOf(REF, 'x:y:P', 'p');
    const child = urnOf(REF, 'x:y:C', 'c');

    expect(() =>
      validateDeployment(
        withResources([
          { urn: child, type: 'x:y:C', parent },
          { urn: parent, type: 'x:y:P' },
        ]),
      ),
    ).toThrow(/refers to parent '.*', which comes after it \(at index 1\).*rule reference-after-resource/);
  });

  it('allows a URN twice only when all but one are marked for deletion', () => {
    const urn = urnOf(REF, 'x:y:Z', 'z');

    expect(validateDeployment(withResources([{ urn, type: 'x:y:Z', delete: true }, { urn, type: 'x:y:Z' }])).resourceCount).toBe(2);
    expect(() => validateDeployment(withResources([{ urn, type: 'x:y:Z' }, { urn, type: 'x:y:Z' }]))).toThrow(/appears more than once not marked for deletion.*rule duplicate-urn/);
  });

  it.each([
    [null, /JSON object/],
    [{ version: 2, deployment: { manifest: {} } }, /version 2 is not supported/],
    [{ version: 5, deployment: { manifest: {} } }, /version 5 is not supported/],
    [{ version: 3 }, /"deployment" must be a JSON object/],
    [{ version: 3, deployment: {} }, /manifest/],
    [{ version: 4, features: [1], deployment: { manifest: {} } }, /features/],
    [{ version: 3, deployment: { manifest: {}, resources: {} } }, /resources" must be a list/],
    [{ version: 3, deployment: { manifest: {}, resources: [{ urn: 'nope', type: 't' }] } }, /resource 1 has no valid "urn"/],
    [{ version: 3, deployment: { manifest: {}, resources: [{ urn: 'urn:pulumi:a::b::c::d' }] } }, /has no "type"/],
    [{ version: 3, deployment: { manifest: {}, pending_operations: [{ type: 'creating' }] } }, /pending operation 1/],
  ])('refuses malformed input %#', (input, message) => {
    expect(() => validateDeployment(input)).toThrow(message);
  });
});

describe('renameDeployment', () => {
  it('rewrites every URN reference, the root stack name and the service secrets provider', () => {
    const to = { org: 'acme', project: 'site', stack: 'prod' };
    const original = sampleDeployment(REF);

    const renamed = renameDeployment(original, REF, to);

    expect(renamed).toEqual(sampleDeployment(to));
    expect(JSON.stringify(renamed)).not.toContain('::web::');
    expect(resources(renamed)[0]!.urn).toBe('urn:pulumi:prod::site::pulumi:pulumi:Stack::site-prod');
    expect(original).toEqual(sampleDeployment(REF));
    expect(() => validateDeployment(renamed)).not.toThrow();
  });

  it('leaves other secrets providers alone', () => {
    const original = sampleDeployment(REF);
    original.deployment.secrets_providers = { type: 'passphrase', state: { salt: 'v1:abc' } };

    const renamed = renameDeployment(original, REF, { ...REF, stack: 'prod' });

    expect(renamed.deployment.secrets_providers).toEqual({ type: 'passphrase', state: { salt: 'v1:abc' } });
  });
});

describe('resource counting', () => {
  it('counts every resource, and holds resources only beyond the root stack', () => {
    const rootOnly = withResources([{ urn: urnOf(REF, 'pulumi:pulumi:Stack', 'web-dev'), type: 'pulumi:pulumi:Stack' }]);

    expect(countResources(sampleDeployment(REF))).toBe(4);
    expect(countResources(withResources([]))).toBe(0);
    expect(holdsResources(rootOnly)).toBe(false);
    expect(holdsResources(sampleDeployment(REF))).toBe(true);
  });
});
