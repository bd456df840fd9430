/**
 * The scan must never accept what the full parse rejects, and must count what it accepts the same way: random
 * deployments (sound and broken), random byte damage, and the shapes the full check refuses.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkDeploymentBytes, checkedResourceCount, resourceCountOf } from './checkpoint-body.js';
import { DeploymentScan, soundDeploymentResourceCount } from './deployment-scan.js';
import { largeResourceChain } from '../../../test/support/large-state.js';

const urn = (n: number) => `urn:pulumi:dev::p::t:i:R::r${n}`;

/** The full check's verdict: the resource count when it accepts, `undefined` when it rejects. */
function fullCount(bytes: Buffer): number | undefined {
  try {
    return resourceCountOf(checkDeploymentBytes(bytes, 'checkpoint'));
  } catch {
    return undefined;
  }
}

const resourceArbitrary = fc.record(
  {
    urn: fc.oneof(fc.integer({ min: 0, max: 5 }).map(urn), fc.constant(''), fc.constant(7)),
    type: fc.constantFrom('t:i:R', 'pulumi:providers:aws', ''),
    custom: fc.boolean(),
    id: fc.constantFrom('x', ''),
    delete: fc.boolean(),
    parent: fc.integer({ min: 0, max: 5 }).map(urn),
    dependencies: fc.array(fc.integer({ min: 0, max: 5 }).map(urn), { maxLength: 2 }),
    provider: fc.constantFrom('urn:pulumi:dev::p::pulumi:providers:aws::r1::x', 'bad'),
    outputs: fc.dictionary(fc.string({ maxLength: 3 }), fc.jsonValue({ maxDepth: 2 })),
  },
  { requiredKeys: ['urn', 'type'] },
);

const documentArbitrary = fc.record(
  {
    version: fc.constantFrom<unknown>(3, 4, 0, 5, '3', 1.5),
    features: fc.constantFrom<unknown>(undefined, ['a'], [1], 'x', null),
    deployment: fc.oneof(
      fc.record(
        {
          manifest: fc.constant({ time: '', magic: '', version: '' }),
          resources: fc.oneof(fc.array(resourceArbitrary, { maxLength: 6 }), fc.constantFrom<unknown>(null, {}, 'x', [1])),
          metadata: fc.constantFrom<unknown>(undefined, {}, { integrity_error: { error: 'known' } }, 'x'),
        },
        { requiredKeys: ['manifest'] },
      ),
      fc.constantFrom<unknown>(null, [], 'x'),
    ),
  },
  { requiredKeys: ['deployment'] },
);

describe('soundDeploymentResourceCount', () => {
  it('accepts exactly what the full check accepts, with the same count (random documents)', () => {
    let accepted = 0;
    fc.assert(
      fc.property(documentArbitrary, fc.boolean(), (document, pretty) => {
        const bytes = Buffer.from(JSON.stringify(document, null, pretty ? 2 : undefined));
        const lean = soundDeploymentResourceCount(bytes);
        expect(lean).toBe(fullCount(bytes));
        if (lean !== undefined) accepted += 1;
      }),
      { numRuns: 3000, seed: 20 },
    );
    expect(accepted).toBeGreaterThan(50);
  });

  it('gives the same verdict and count however the bytes are cut into chunks (random documents)', () => {
    const cut = documentArbitrary.chain((document) => {
      const bytes = Buffer.from(JSON.stringify(document));
      return fc.tuple(fc.constant(bytes), fc.uniqueArray(fc.nat(bytes.length), { maxLength: 8 }));
    });
    fc.assert(
      fc.property(cut, ([bytes, cuts]) => {
        const scan = new DeploymentScan();
        let at = 0;
        for (const end of [...cuts.sort((a, b) => a - b), bytes.length]) {
          scan.push(Buffer.from(bytes.subarray(at, end)));
          at = end;
        }
        expect(scan.end()).toBe(fullCount(bytes));
      }),
      { numRuns: 2000, seed: 20 },
    );
  });

  it('accepts nothing the full parse rejects after random damage to the bytes', () => {
    const sound = Buffer.from(
      JSON.stringify({
        version: 3,
        deployment: {
          manifest: { time: '', magic: '', version: '' },
          resources: [
            { urn: urn(0), custom: true, id: 'x', type: 't:i:R', outputs: { a: [1, 2, { b: 'c\\"' }] } },
            { urn: urn(1), custom: true, type: 't:i:R', dependencies: [urn(0)], parent: urn(0) },
          ],
        },
      }),
    );
    expect(soundDeploymentResourceCount(sound)).toBe(2);
    fc.assert(
      fc.property(fc.nat(sound.length - 1), fc.integer({ min: 0, max: 255 }), fc.boolean(), (at, byte, cut) => {
        const damaged = cut ? sound.subarray(0, at) : Buffer.concat([sound.subarray(0, at), Buffer.from([byte]), sound.subarray(at + 1)]);
        const lean = soundDeploymentResourceCount(damaged);
        if (lean !== undefined) expect(fullCount(damaged)).toBe(lean);
      }),
      { numRuns: 3000, seed: 20 },
    );
  });

  it('leaves every broken state to the full check, which names the rule', () => {
    const broken = Buffer.from(
      JSON.stringify({ version: 3, deployment: { resources: [{ urn: urn(0), type: 't:i:R', parent: urn(1) }, { urn: urn(1), type: 't:i:R' }] } }),
    );
    expect(soundDeploymentResourceCount(broken)).toBeUndefined();
    expect(() => checkDeploymentBytes(broken, 'checkpoint')).toThrow(/rule reference-after-resource/);
    expect(soundDeploymentResourceCount(Buffer.from('\ufeff{"version":3,"deployment":{}}'))).toBeUndefined();
    expect(soundDeploymentResourceCount(Buffer.from('{"version":3,"deployment":{},"deployment":[]}'))).toBeUndefined();
    expect(soundDeploymentResourceCount(Buffer.from('{"version":3,"deployment":[],"deployment":{"resources":null}}'))).toBe(0);
  });

  it('checks a large state (scanned) as strictly as a small one (parsed)', () => {
    const resources = largeResourceChain(urn);
    const large = (list: unknown[]) => Buffer.from(JSON.stringify({ version: 3, deployment: { resources: list } }));
    const sound = large(resources);
    expect(sound.byteLength).toBeGreaterThan(8 * 1024 * 1024);
    expect(checkedResourceCount(sound, 'checkpoint')).toBe(9000);
    const broken = large([...resources.slice(0, 100), resources[0], ...resources.slice(100)]);
    expect(() => checkedResourceCount(broken, 'checkpoint')).toThrow(/resource #101, rule duplicate-urn/);
  });
});
