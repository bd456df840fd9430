import type { Range } from './diagnostics.js';
import type { JSONSchema } from './schema/schema.js';

/** A step of a property path: a key or an index, with its range in the source. */
export interface EscAccessor {
  index?: number;
  key?: string;
  range: Range;
}

/** A step of a `${…}` path and where the value it reached was defined. */
export interface EscPropertyAccessor extends EscAccessor {
  value: Range;
}

/**
 * An expression of a checked environment in ESC's shape (esc.Expr): its range, schema, the imported expression
 * it overrides (`base`), and what it is — a literal, an interpolation, a reference, a list, an object or a
 * builtin call. Tools use it to show where a value comes from (`esc env get`'s definition stack).
 */
export interface EscExpr {
  range: Range;
  schema?: JSONSchema;
  base?: EscExpr;
  keyRanges?: Record<string, Range>;
  literal?: boolean | number | string;
  interpolate?: { text?: string; value?: EscPropertyAccessor[] }[];
  symbol?: EscPropertyAccessor[];
  access?: { receiver: Range; accessors: EscAccessor[] };
  list?: EscExpr[];
  object?: Record<string, EscExpr>;
  builtin?: { name: string; nameRange: Range; argSchema: JSONSchema; arg: EscExpr };
}
