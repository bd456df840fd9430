import { describe, expect, it } from 'vitest';
import { fitsConfigType, parseProjectConfig, validateStackConfig, type StackConfigValue } from './config-schema.js';

const FILE = '/p/Pulumi.yaml';

function validate(config: unknown, stack: Record<string, StackConfigValue>): void {
  validateStackConfig('dev', 'proj', parseProjectConfig(FILE, 'proj', config), stack);
}

const plain = (value: string): StackConfigValue => ({ value, secret: false });

describe('project config declarations (Pulumi.yaml config:)', () => {
  it('reads shorthand values as defaults of project keys and values of other namespaces', () => {
    // Act
    const decls = parseProjectConfig(FILE, 'proj', { size: 3, 'aws:region': 'us-west-2', 'proj:name': { type: 'string' } });

    // Assert
    expect(decls).toEqual([
      { name: 'aws:region', key: 'aws:region', value: 'us-west-2', secret: false },
      { name: 'proj:name', key: 'proj:name', type: 'string', secret: false },
      { name: 'size', key: 'proj:size', default: 3, secret: false },
    ]);
  });

  it.each([
    [{ a: { default: 1, value: 2 } }, "project config 'a' cannot have both a 'default' and 'value' attribute"],
    [{ a: { type: 'array' } }, "The configuration key 'a' declares an array but does not specify the underlying type via the 'items' attribute"],
    [{ a: { type: 'integer', default: 'x' } }, "The default value specified for configuration key 'a' is not of the expected type 'integer'"],
    [{ a: { type: 'array', items: { type: 'string' }, default: [1] } }, "The default value specified for configuration key 'a' is not of the expected type 'array<string>'"],
    [{ 'aws:region': { type: 'string', value: 'x' } }, "Configuration key 'aws:region' is not namespaced by the project and should not define a type"],
    [{ 'aws:region': { default: 'x' } }, "Configuration key 'aws:region' is not namespaced by the project and should not define a default value. Did you mean to use the 'value' attribute instead of 'default'?"],
    [{ 'aws:region': { description: 'x' } }, "Configuration key 'aws:region' is namespaced and must provide an attribute 'value'"],
    [{ a: { type: 'float' } }, "config 'a': 'type' must be one of"],
    [{ a: { typo: 'string' } }, "config 'a': 'typo' is not a field of a config declaration"],
  ])('refuses %j with Pulumi\'s message', (config, message) => {
    expect(() => parseProjectConfig(FILE, 'proj', config)).toThrow(message);
  });
});

describe('stack config validated against the project schema', () => {
  it('names one missing key', () => {
    expect(() => validate({ values: { type: 'string' } }, {})).toThrow("validating stack config: Stack 'dev' is missing configuration value 'values'");
  });

  it('names several missing keys sorted, joined as Pulumi joins them', () => {
    expect(() => validate({ world: { type: 'string' }, hello: {}, values: { type: 'string' }, kept: { default: 'x' } }, {})).toThrow(
      "Stack 'dev' is missing configuration values 'hello', 'values' and 'world'",
    );
    expect(() => validate({ values: {}, another: {} }, {})).toThrow("Stack 'dev' is missing configuration values 'another' and 'values'");
  });

  it('does not require a key of another namespace', () => {
    expect(() => validate({ 'aws:region': 'us-east-1' }, {})).not.toThrow();
  });

  it('refuses a value of the wrong type, naming the full type', () => {
    expect(() => validate({ importantNumber: { type: 'integer' } }, { 'proj:importantNumber': plain('hello') })).toThrow(
      "Stack 'dev' with configuration key 'importantNumber' must be of type 'integer'",
    );
    expect(() => validate({ values: { type: 'array', items: { type: 'string' } } }, { 'proj:values': { value: '[1,2]', object: true, secret: false } })).toThrow(
      "Stack 'dev' with configuration key 'values' must be of type 'array<string>'",
    );
  });

  it('accepts values of the declared types, as the program text Pulumi compares', () => {
    const schema = {
      n: { type: 'integer' },
      b: { type: 'boolean' },
      s: { type: 'string' },
      l: { type: 'array', items: { type: 'array', items: { type: 'integer' } } },
    };
    expect(() =>
      validate(schema, { 'proj:n': plain('42'), 'proj:b': plain('false'), 'proj:s': plain('7'), 'proj:l': { value: '[[1,2],[3]]', object: true, secret: false } }),
    ).not.toThrow();
  });

  it('requires a secret key to be encrypted', () => {
    expect(() => validate({ importantNumber: { type: 'integer', secret: true } }, { 'proj:importantNumber': plain('1') })).toThrow(
      "Stack 'dev' with configuration key 'importantNumber' must be encrypted as it's secret",
    );
    expect(() => validate({ importantNumber: { type: 'integer', secret: true } }, { 'proj:importantNumber': { value: '1', secret: true } })).not.toThrow();
  });

  it('checks the types as Go does: whole floats are integers, "true"/"false" strings are booleans', () => {
    expect(fitsConfigType('integer', undefined, 3)).toBe(true);
    expect(fitsConfigType('integer', undefined, 3.5)).toBe(false);
    expect(fitsConfigType('integer', undefined, '-12')).toBe(true);
    expect(fitsConfigType('boolean', undefined, 'True')).toBe(false);
    expect(fitsConfigType('object', undefined, { a: 1 })).toBe(true);
    expect(fitsConfigType('array', undefined, [])).toBe(false);
  });
});
