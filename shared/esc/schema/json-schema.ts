import { fromJSONSchema, type JSONSchema, type Schema } from './schema.js';

const ref = { $ref: '#/$defs/schema' };
const numberKeyword = { type: 'number' };

const META_SCHEMA: JSONSchema = {
  $defs: {
    schema: {
      anyOf: [
        { type: 'boolean' },
        {
          type: 'object',
          properties: {
            $defs: { type: 'object', additionalProperties: ref },
            $ref: { type: 'string' },
            anyOf: { type: 'array', items: ref },
            oneOf: { type: 'array', items: ref },
            prefixItems: { type: 'array', items: ref },
            items: ref,
            additionalProperties: ref,
            properties: { type: 'object', additionalProperties: ref },
            type: { type: 'string', enum: ['string', 'number', 'boolean', 'array', 'object', 'null'] },
            const: {},
            enum: { type: 'array' },
            multipleOf: numberKeyword,
            maximum: numberKeyword,
            exclusiveMaximum: numberKeyword,
            minimum: numberKeyword,
            exclusiveMinimum: numberKeyword,
            maxLength: numberKeyword,
            minLength: numberKeyword,
            pattern: { type: 'string' },
            maxItems: numberKeyword,
            minItems: numberKeyword,
            uniqueItems: { type: 'boolean' },
            maxProperties: numberKeyword,
            minProperties: numberKeyword,
            required: { type: 'array', items: { type: 'string' } },
            dependentRequired: { type: 'object', additionalProperties: { type: 'array', items: { type: 'string' } } },
            title: { type: 'string' },
            description: { type: 'string' },
            default: {},
            deprecated: { type: 'boolean' },
            examples: { type: 'array' },
          },
        },
      ],
    },
  },
  $ref: '#/$defs/schema',
};

/** The schema of the schemas `fn::validate` accepts (ESC's JSONSchemaSchema); a fresh copy, as compiling marks it. */
export function jsonSchemaSchema(): Schema {
  return fromJSONSchema(structuredClone(META_SCHEMA));
}
