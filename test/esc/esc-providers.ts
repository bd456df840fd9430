import { escValue, type EscProvider, type EscRotator, type EscValue, type JSONSchema } from '../../shared/esc/index.js';

/**
 * The test-only providers and rotators of pulumi/esc's eval tests (eval/eval_test.go), rebuilt from their
 * description: each is tiny and deterministic.
 */

const record = (properties: Record<string, JSONSchema>): JSONSchema => ({ type: 'object', properties, required: Object.keys(properties).sort() });

const schemaProviderSchema: JSONSchema = {
  type: 'object',
  $defs: { defRecord: record({ baz: { type: 'string', const: 'qux' } }) },
  properties: {
    null: { type: 'null' },
    boolean: { type: 'boolean' },
    false: { type: 'boolean', const: false },
    true: { type: 'boolean', const: true },
    number: { type: 'number' },
    pi: { type: 'number', const: 3.14 },
    string: { type: 'string' },
    hello: { type: 'string', const: 'hello' },
    array: { type: 'array', items: true },
    tuple: { type: 'array', prefixItems: [{ type: 'string', const: 'hello' }, { type: 'string', const: 'world' }], items: false },
    map: { type: 'object', additionalProperties: true },
    record: record({ foo: { type: 'string' } }),
    anyOf: { anyOf: [{ type: 'string' }, { type: 'number' }] },
    oneOf: { oneOf: [{ type: 'string' }, { type: 'number' }] },
    ref: { $ref: '#/$defs/defRecord' },
    'const-array': { type: 'array', const: ['hello', 42] },
    'const-object': { type: 'object', const: { hello: 'world' } },
    enum: { type: 'string', enum: ['foo', 'bar'] },
    never: false,
    always: true,
    double: { type: 'array', prefixItems: [{ type: 'string' }, { type: 'number' }], items: false },
    triple: { type: 'array', prefixItems: [{ type: 'string' }, { type: 'number' }, { type: 'boolean' }], items: false },
    dependentReq: { type: 'object', properties: { foo: { type: 'string' }, bar: { type: 'number' } }, dependentRequired: { foo: ['bar'] } },
    multiple: { type: 'number', multipleOf: 2 },
    minimum: { type: 'number', minimum: 1 },
    exclusiveMinimum: { type: 'number', exclusiveMinimum: 1 },
    maximum: { type: 'number', maximum: 1 },
    exclusiveMaximum: { type: 'number', exclusiveMaximum: 1 },
    minLength: { type: 'string', minLength: 1 },
    maxLength: { type: 'string', maxLength: 1 },
    pattern: { type: 'string', pattern: '^foo[0-9]+$' },
    minItems: { type: 'array', minItems: 3 },
    maxItems: { type: 'array', maxItems: 2 },
    minProperties: { type: 'object', minProperties: 1 },
    maxProperties: { type: 'object', maxProperties: 1 },
  },
};

const echoState: JSONSchema = { type: 'object', properties: { current: { type: 'string' }, previous: { type: 'string' } }, required: ['current'] };

/** `error` fails with its `why`; `schema` checks every JSON Schema keyword; `test` echoes; `secret-wrapper` echoes as a secret; `bench` answers "0s". */
export const testProviders: Record<string, EscProvider> = {
  error: {
    inputSchema: record({ why: { type: 'string' } }),
    open: async (inputs) => {
      throw new Error(String(inputs.why.value));
    },
  },
  schema: { inputSchema: schemaProviderSchema, outputSchema: schemaProviderSchema, open: async (inputs) => ({ value: inputs }) },
  test: { inputSchema: true, open: async (inputs) => ({ value: inputs }) },
  'secret-wrapper': { inputSchema: true, open: async (inputs) => ({ value: inputs, secret: true }) },
  bench: { inputSchema: true, open: async () => escValue('0s') },
};

/** `swap` swaps its state's `a` and `b`; `echo` moves `current` to `previous` and its rotate-only input `next` to `current`. */
export const testRotators: Record<string, EscRotator> = {
  swap: {
    inputSchema: true,
    stateSchema: record({ a: { type: 'string' }, b: { type: 'string' } }),
    outputSchema: record({ a: { type: 'string' }, b: { type: 'string' } }),
    open: async (_inputs, state) => ({ value: state ?? {} }),
    rotate: async (_inputs, state) => ({ value: { a: state!.b, b: state!.a } }),
  },
  echo: {
    inputSchema: { ...(record({ next: { type: 'string' } }) as object), rotateOnly: ['next'] },
    stateSchema: echoState,
    outputSchema: echoState,
    open: async (inputs, state) => {
      if (!inputs.next.unknown && inputs.next.value !== state?.current?.value) throw new Error('oh no! inputs were evaluated outside of rotation');
      return { value: state ?? {} };
    },
    rotate: async (inputs, state) => {
      if (inputs.next.unknown) throw new Error('oh no! rotateOnly inputs were not evaluated during rotation');
      const next: Record<string, EscValue> = { current: inputs.next, previous: state?.current ?? { value: null } };
      return { value: next };
    },
  },
};
