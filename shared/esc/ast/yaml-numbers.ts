import type { ScalarTag } from 'yaml';

const YAML_STYLE_FLOAT = /^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/;
const GO_INTEGER = /^([-+]?)(0[xX][0-9a-fA-F]+|0[oO][0-7]+|0[bB][01]+|0[0-7]*|[1-9][0-9]*)$/;

/**
 * The number go-yaml v3 (ESC's YAML decoder) reads from a plain scalar, or undefined when it reads a string.
 * It differs from YAML 1.2's core schema: underscores are ignored, `0755` is octal (YAML 1.1), `0b101` is
 * binary, and hexadecimal and octal numbers may carry a sign.
 */
export function goYamlNumber(text: string): number | undefined {
  if (text.startsWith('.')) return YAML_STYLE_FLOAT.test(text) ? Number(text) : undefined;
  const plain = text.replaceAll('_', '');
  const integer = GO_INTEGER.exec(plain);
  if (integer !== null) {
    const [, sign, body] = integer;
    const prefix = body.slice(0, 2).toLowerCase();
    const magnitude =
      prefix === '0x' ? parseInt(body.slice(2), 16)
      : prefix === '0o' ? parseInt(body.slice(2), 8)
      : prefix === '0b' ? parseInt(body.slice(2), 2)
      : body.startsWith('0') ? parseInt(body, 8)
      : Number(body);
    return sign === '-' ? -magnitude : magnitude;
  }
  return YAML_STYLE_FLOAT.test(plain) ? Number(plain) : undefined;
}

/** A yaml tag, tried before the core schema's, that resolves plain scalars which look numeric as go-yaml does. */
export const goNumberTag: ScalarTag = {
  tag: 'tag:yaml.org,2002:int',
  default: true,
  test: /^[-+.0-9]/,
  resolve: (text: string) => goYamlNumber(text) ?? text,
};
