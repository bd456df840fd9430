import { errorAt, type Diagnostic, type Range } from '../diagnostics.js';
import { scalarRange, type StringNode } from './syntax.js';

/** `.name` or a bare first name in a property path. */
export interface PropertyName {
  kind: 'name';
  name: string;
  range?: Range;
}

/** `["key"]` or `[0]`; a numeric subscript that is not a number keeps its text as a string index. */
export interface PropertySubscript {
  kind: 'subscript';
  index: string | number;
  range?: Range;
}

/** One step of a property path. */
export type PropertyAccessor = PropertyName | PropertySubscript;

/** A property path inside `${…}`. */
export interface PropertyAccess {
  accessors: PropertyAccessor[];
}

/** A piece of an interpolated string: literal text, then the property it interpolates, if any. */
export interface Interpolation {
  text: string;
  value?: PropertyAccess;
}

/** Splits a string scalar into text and `${…}` property accesses; `$$` is a literal `$`. */
export function parseInterpolation(node: StringNode): { parts: Interpolation[]; diagnostics: Diagnostic[] } {
  const chars = [...node.value];
  const parts: Interpolation[] = [];
  const diagnostics: Diagnostic[] = [];
  let text = '';
  let i = 0;
  while (i < chars.length) {
    if (chars[i] === '$' && chars[i + 1] === '$') {
      text += '$';
      i += 2;
    } else if (chars[i] === '$' && chars[i + 1] === '{') {
      const parser = new AccessParser(node, chars, i + 2, diagnostics);
      const access = parser.parse();
      parts.push({ text, value: access });
      text = '';
      i = parser.offset;
    } else {
      text += chars[i];
      i++;
    }
  }
  if (text.length > 0) parts.push({ text });
  return { parts, diagnostics };
}

const isSpace = (c: string): boolean => /\s/u.test(c);

class AccessParser {
  private readonly accessors: PropertyAccessor[] = [];

  constructor(
    private readonly node: StringNode,
    private readonly chars: string[],
    public offset: number,
    private readonly diagnostics: Diagnostic[],
  ) {}

  parse(): PropertyAccess {
    for (;;) {
      const c = this.peek();
      if (c === undefined) {
        this.error(this.offset, "missing closing brace '}' in interpolation");
        return this.finish(this.offset);
      }
      if (c === '}') return this.finish(this.next());
      if (c === '.') this.accessors.push(this.parseName(this.next()));
      else if (c === '[') this.accessors.push(this.parseSubscript(this.next()));
      else if (isSpace(c)) {
        this.error(this.offset, "missing closing brace '}' in interpolation");
        return this.finish(this.offset);
      } else this.accessors.push(this.parseName(this.offset));
    }
  }

  private peek(): string | undefined {
    return this.chars[this.offset];
  }

  private next(): number {
    return this.offset++;
  }

  private rangeFrom(start: number): Range | undefined {
    return scalarRange(this.node, start, this.offset);
  }

  private error(start: number, summary: string): void {
    this.diagnostics.push(errorAt(this.rangeFrom(start) ?? this.node.range, summary, this.node.path));
  }

  private finish(start: number): PropertyAccess {
    if (this.accessors.length === 0) this.accessors.push({ kind: 'name', name: '', range: this.rangeFrom(start) });
    return { accessors: this.accessors };
  }

  private terminatesName(c: string): boolean {
    return c === '.' || c === '[' || c === '}' || isSpace(c);
  }

  private parseName(start: number): PropertyName {
    let name = '';
    for (let c = this.peek(); c !== undefined && !this.terminatesName(c); c = this.peek()) {
      this.next();
      name += c;
    }
    if (name.length === 0) this.error(start, 'property name must not be empty');
    return { kind: 'name', name, range: this.rangeFrom(start) };
  }

  private parseSubscript(start: number): PropertySubscript {
    const c = this.peek();
    if (c === undefined) {
      this.error(start, "subscript is missing closing bracket ']'");
      return { kind: 'subscript', index: '', range: this.rangeFrom(start) };
    }
    let index: string | number;
    if (c === '"') {
      this.next();
      index = this.parseStringSubscript(start);
    } else {
      index = this.parseIndexSubscript(start);
    }
    if (this.peek() !== ']') this.error(start, "subscript is missing closing bracket ']'");
    else this.next();
    return { kind: 'subscript', index, range: this.rangeFrom(start) };
  }

  private parseStringSubscript(start: number): string {
    let key = '';
    for (;;) {
      let c = this.peek();
      if (c === undefined) {
        this.error(start + 1, 'key subscript is missing closing quote \'"\'');
        return key;
      }
      this.next();
      if (c === '"') {
        if (key.length === 0) this.error(start + 1, 'key subscript must not be empty');
        return key;
      }
      if (c === '\\' && this.peek() === '"') {
        this.next();
        c = '"';
      }
      key += c;
    }
  }

  private parseIndexSubscript(start: number): string | number {
    let text = '';
    for (let c = this.peek(); c !== undefined && c !== ']' && !this.terminatesName(c); c = this.peek()) {
      this.next();
      text += c;
    }
    if (!/^[+-]?[0-9]+$/.test(text)) {
      this.error(start + 1, 'numeric subscript must be a positive base-10 integer');
      return text;
    }
    if (this.accessors.length === 0) {
      this.error(start, 'the first accessor must be a property name or key subscript, not a numeric subscript');
    }
    return Number(text);
  }
}
