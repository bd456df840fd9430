import { isAlias, isMap, isScalar, isSeq, parseDocument, Scalar, type Node as YamlNode } from 'yaml';
import { errorAt, type Diagnostic, type Pos, type Range } from '../diagnostics.js';
import { formatPath } from './path.js';
import { goNumberTag } from './yaml-numbers.js';

/**
 * The syntax tree under the AST: YAML nodes with ESC's source ranges and document paths. Ranges follow
 * pulumi/esc's YAML decoder, so diagnostics land on the lines and columns ESC reports.
 */
export type SyntaxNode = NullNode | BooleanNode | NumberNode | StringNode | ArrayNode | ObjectNode;

interface SyntaxBase {
  /** Absent for nodes the evaluator makes up (they have no place in the source). */
  range?: Range;
  path: string;
}

/** `null`, `~` or an empty value. */
export interface NullNode extends SyntaxBase {
  kind: 'null';
}

/** A boolean scalar. */
export interface BooleanNode extends SyntaxBase {
  kind: 'boolean';
  value: boolean;
}

/** A numeric scalar. */
export interface NumberNode extends SyntaxBase {
  kind: 'number';
  value: number;
}

/** A string scalar; `plainLine` is set for single-line plain scalars, whose characters map one-to-one to columns. */
export interface StringNode extends SyntaxBase {
  kind: 'string';
  value: string;
  plainLine?: boolean;
}

/** A sequence. */
export interface ArrayNode extends SyntaxBase {
  kind: 'array';
  items: SyntaxNode[];
}

/** One key/value pair of a mapping; the key is a string node unless the source used another scalar. */
export interface ObjectEntry {
  key: SyntaxNode;
  value: SyntaxNode;
}

/** A mapping, its entries in source order (duplicates kept: the AST reports them). */
export interface ObjectNode extends SyntaxBase {
  kind: 'object';
  entries: ObjectEntry[];
}

/** The range of characters [start, end) of a plain single-line string scalar, as ESC's ScalarRange. */
export function scalarRange(node: StringNode, start: number, end: number): Range | undefined {
  if (!node.plainLine || node.range === undefined) return undefined;
  const chars = [...node.value];
  const shift = (n: number): Pos => {
    const prefix = chars.slice(0, n).join('');
    return {
      line: node.range!.begin.line,
      column: node.range!.begin.column + [...prefix].length,
      byte: node.range!.begin.byte + Buffer.byteLength(prefix),
    };
  };
  return { environment: node.range.environment, begin: shift(start), end: shift(end) };
}

class PositionIndex {
  private readonly lineStarts: number[] = [0];
  private readonly lineByteStarts: number[] = [0];

  constructor(private readonly text: string) {
    let bytes = 0;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      bytes += c < 0x80 ? 1 : c < 0x800 ? 2 : c >= 0xd800 && c <= 0xdbff ? 4 : c >= 0xdc00 && c <= 0xdfff ? 0 : 3;
      if (c === 10) {
        this.lineStarts.push(i + 1);
        this.lineByteStarts.push(bytes);
      }
    }
  }

  /** The line (1-based) holding a string offset. */
  lineOf(offset: number): number {
    let lo = 0;
    let hi = this.lineStarts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.lineStarts[mid] <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  }

  fromOffset(offset: number): Pos {
    const line = this.lineOf(offset);
    const prefix = this.text.slice(this.lineStarts[line - 1], offset);
    return { line, column: [...prefix].length + 1, byte: this.lineByteStarts[line - 1] + Buffer.byteLength(prefix) };
  }

  /** A line/column position, the byte offset counted through the line's characters (columns past its end count one byte each). */
  fromLineColumn(line: number, column: number): Pos {
    if (line < 1 || line > this.lineStarts.length) return { line, column, byte: 0 };
    const start = this.lineStarts[line - 1];
    const end = line < this.lineStarts.length ? this.lineStarts[line] - 1 : this.text.length;
    const chars = [...this.text.slice(start, end)];
    const within = chars.slice(0, column - 1).join('');
    const past = Math.max(0, column - 1 - chars.length);
    return { line, column, byte: this.lineByteStarts[line - 1] + Buffer.byteLength(within) + past };
  }
}

/** The result of decoding YAML: the root node (absent when the text is not YAML) and the problems found. */
export interface DecodedYaml {
  node?: SyntaxNode;
  diagnostics: Diagnostic[];
}

/** Decodes YAML text into syntax nodes whose ranges name `filename` as their environment. */
export function decodeYaml(filename: string, text: string): DecodedYaml {
  if (text.length === 0) return { node: { kind: 'object', entries: [], path: '' }, diagnostics: [] };
  const doc = parseDocument(text, { uniqueKeys: false, prettyErrors: false, strict: false, customTags: (tags) => [goNumberTag, ...tags] });
  const positions = new PositionIndex(text);
  if (doc.errors.length > 0) {
    return { diagnostics: [errorAt(undefined, yamlErrorSummary(doc.errors[0], doc.contents, text, positions), '')] };
  }
  if (doc.contents === null) return { node: { kind: 'object', entries: [], path: '' }, diagnostics: [] };
  const diagnostics: Diagnostic[] = [];
  const node = new Decoder(filename, text, positions, diagnostics).decode(doc.contents as YamlNode, []);
  return { node, diagnostics };
}

/**
 * ESC reports go-yaml's messages. For the error users hit most, an unclosed flow collection, say what go-yaml
 * says (on the 0-based line of the collection, as go-yaml counts); otherwise give the yaml package's message
 * with go-yaml's prefix.
 */
function yamlErrorSummary(error: { message: string; pos: [number, number] }, contents: unknown, text: string, positions: PositionIndex): string {
  const unclosed = findUnclosedFlow(contents, text);
  if (unclosed !== undefined) {
    const line = positions.lineOf(unclosed.offset) - 1;
    return `yaml: line ${line}: did not find expected ',' or '${unclosed.close}'`;
  }
  const firstLine = error.message.split('\n')[0].replace(/ at line \d+, column \d+:?$/, '');
  return `yaml: line ${positions.lineOf(error.pos[0])}: ${firstLine}`;
}

function findUnclosedFlow(node: unknown, text: string): { offset: number; close: string } | undefined {
  if (isMap(node) || isSeq(node)) {
    const range = node.range;
    if (node.flow && range) {
      const close = isSeq(node) ? ']' : '}';
      if (text.slice(range[0], range[1]).trimEnd().slice(-1) !== close) return { offset: range[0], close };
    }
    for (const item of node.items as unknown[]) {
      const pair = item as { key?: unknown; value?: unknown };
      const found = isSeq(node) ? findUnclosedFlow(item, text) : findUnclosedFlow(pair.key, text) ?? findUnclosedFlow(pair.value, text);
      if (found) return found;
    }
  }
  return undefined;
}

type PathPart = string | number;

class Decoder {
  constructor(
    private readonly filename: string,
    private readonly text: string,
    private readonly positions: PositionIndex,
    private readonly diagnostics: Diagnostic[],
  ) {}

  decode(node: YamlNode | null, path: PathPart[]): SyntaxNode {
    const pathString = formatPath(path);
    if (node === null) {
      return { kind: 'null', path: pathString };
    }
    const range = this.range(node);
    if (isAlias(node)) {
      this.diagnostics.push(errorAt(range, 'alias nodes are not supported', pathString));
      return { kind: 'null', range, path: pathString };
    }
    if (isSeq(node)) {
      const items = node.items.map((item, i) => this.decode(item as YamlNode | null, [...path, i]));
      return { kind: 'array', items, range, path: pathString };
    }
    if (isMap(node)) {
      const entries: ObjectEntry[] = node.items.map((pair) => {
        const keyNode = pair.key as YamlNode | null;
        const keyText = isScalar(keyNode) ? (typeof keyNode.value === 'string' ? keyNode.value : String(keyNode.source ?? keyNode.value)) : '';
        const entryPath = [...path, keyText];
        const key = this.decode(keyNode, entryPath);
        if (key.kind !== 'string') this.diagnostics.push(errorAt(key.range, 'mapping keys must be strings', key.path));
        return { key, value: this.decode(pair.value as YamlNode | null, entryPath) };
      });
      return { kind: 'object', entries, range, path: pathString };
    }
    if (isScalar(node)) return this.scalar(node, range, pathString);
    return { kind: 'null', range, path: pathString };
  }

  private scalar(node: Scalar, range: Range, path: string): SyntaxNode {
    const value = node.value;
    if (value === null || value === undefined) return { kind: 'null', range, path };
    if (typeof value === 'boolean') return { kind: 'boolean', value, range, path };
    if (typeof value === 'number' || typeof value === 'bigint') return { kind: 'number', value: Number(value), range, path };
    const plainLine = node.type === Scalar.PLAIN && range.begin.line === range.end.line;
    return { kind: 'string', value: String(value), range, path, ...(plainLine ? { plainLine } : {}) };
  }

  /** ESC's range: starts where go-yaml places the node; ends where go-yaml's decoder computes (see yamlEndPos). */
  private range(node: YamlNode): Range {
    let offset = node.range?.[0] ?? 0;
    // go-yaml places an empty value right after its indicator (`- ` or `key:`), not after the spaces that follow.
    if (isScalar(node) && node.value === null && node.source === '') {
      while (offset > 0 && (this.text[offset - 1] === ' ' || this.text[offset - 1] === '\t')) offset--;
    }
    const begin = this.positions.fromOffset(offset);
    return { environment: this.filename, begin, end: this.endPos(node, begin) };
  }

  private endPos(node: YamlNode, begin: Pos): Pos {
    if (isSeq(node) || isMap(node)) {
      const last = node.items[node.items.length - 1] as unknown;
      const lastNode = (isSeq(node) ? last : (last as { value?: unknown } | undefined)?.value) as YamlNode | undefined;
      if (!lastNode || !lastNode.range) return begin;
      return this.endPos(lastNode, this.positions.fromOffset(lastNode.range[0]));
    }
    if (isScalar(node)) {
      let line = begin.line;
      let rest = typeof node.source === 'string' && node.type === Scalar.PLAIN ? node.source : String(node.value ?? node.source ?? '');
      if (node.type === Scalar.BLOCK_LITERAL) {
        const lines = rest.split('\n');
        line += lines.length - 1;
        rest = lines[lines.length - 1];
      }
      // go-yaml's decoder adds the value's length in bytes to the start column; kept, so ranges match ESC's.
      return this.positions.fromLineColumn(line, begin.column + Buffer.byteLength(rest));
    }
    return begin;
  }
}
