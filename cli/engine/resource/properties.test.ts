import { describe, expect, it } from 'vitest';
import { applyIgnoreChanges } from '../steps/ignore-changes.js';
import {
  annotateSecrets,
  containsUnknowns,
  downgradeResourceRefs,
  fromStruct,
  makeSecret,
  resolveOutputValues,
  SIG_KEY,
  stripSecrets,
  toStruct,
  UNKNOWN,
  OUTPUT_VALUE_SIG,
  RESOURCE_REF_SIG,
} from './properties.js';

describe('property values', () => {
  it('round-trips through Struct and drops undefined members', () => {
    const m = fromStruct(toStruct({ a: 1, b: { c: [true, null, 'x'] }, d: undefined } as never));
    expect(m).toEqual({ a: 1, b: { c: [true, null, 'x'] } });
  });

  it('strips nested secrets and re-marks outputs whose inputs were secret', () => {
    const inputs = { key: makeSecret('k'), list: [makeSecret(1)], plain: 'p' };
    expect(stripSecrets(inputs)).toEqual({ key: 'k', list: [1], plain: 'p' });
    const outputs = annotateSecrets({ key: 'k', list: [1], plain: 'p', extra: 2 }, inputs);
    expect(outputs).toEqual({ key: makeSecret('k'), list: makeSecret([1]), plain: 'p', extra: 2 });
  });

  it('resolves output values to plain, secret or unknown forms', () => {
    const v = resolveOutputValues({
      known: { [SIG_KEY]: OUTPUT_VALUE_SIG, value: 3 },
      secret: { [SIG_KEY]: OUTPUT_VALUE_SIG, value: 's', secret: true },
      unknown: { [SIG_KEY]: OUTPUT_VALUE_SIG, dependencies: ['urn:x'] },
    });
    expect(v).toEqual({ known: 3, secret: makeSecret('s'), unknown: UNKNOWN });
    expect(containsUnknowns(v)).toBe(true);
    expect(containsUnknowns({ known: 3 })).toBe(false);
  });

  it('downgrades resource references to ids or URNs', () => {
    const custom = { [SIG_KEY]: RESOURCE_REF_SIG, urn: 'urn:a', id: 'id-a' };
    const component = { [SIG_KEY]: RESOURCE_REF_SIG, urn: 'urn:c' };
    expect(downgradeResourceRefs({ r: [custom, component] })).toEqual({ r: ['id-a', 'urn:c'] });
  });

  it('keeps old values at ignored paths, including removal of new ones', () => {
    const olds = { a: 1, nested: { x: 1, y: 2 }, list: [{ n: 1 }, { n: 2 }] };
    const news = { a: 2, nested: { x: 5, y: 6 }, list: [{ n: 7 }, { n: 8 }], extra: true };
    expect(applyIgnoreChanges(olds, news, ['a', 'nested.x', 'list[*].n', 'extra']).inputs).toEqual({
      a: 1,
      nested: { x: 1, y: 6 },
      list: [{ n: 1 }, { n: 2 }],
    });
  });
});
