import { describe, expect, it } from 'vitest';
import { evalEnvironment, toJSON } from '../index.js';

describe('YAML numbers read as go-yaml (ESC) reads them', () => {
  it('reads octal, binary, signed hex and underscored numbers, and leaves version strings alone', async () => {
    const yaml = ['values:', '  octal: 0755', '  thousands: 1_000', '  hex: -0x1F', '  binary: 0b101', '  float: 1.5e3', '  lead: 08', '  version: 1.2.3', '  dot: .5', '  word: -foo', '  quoted: "0755"'].join('\n');

    const { environment, diagnostics } = await evalEnvironment('numbers', yaml);

    expect(diagnostics).toEqual([]);
    expect(toJSON({ value: environment!.properties }, false)).toEqual({
      octal: 493,
      thousands: 1000,
      hex: -31,
      binary: 5,
      float: 1500,
      lead: 8,
      version: '1.2.3',
      dot: 0.5,
      word: '-foo',
      quoted: '0755',
    });
  });
});
