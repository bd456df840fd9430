/**
 * How a YAML file's first error is told: the `yaml` package's reason with the line and column it happened at, on one
 * line (the package's own message goes on with an excerpt that a one-line error cannot show).
 *
 * Imported lazily where start-up matters (project.ts): only a broken file needs the parser's documents.
 */
import { isNode, parseDocument, visit, type Document } from 'yaml';

/**
 * The first error of `text`, or `undefined` when it parses. The package notices a value left open (a `[`, `{` or
 * quote never closed) only when the text has run out, and reports the position after the last line, where nothing is
 * to be seen; such an error is pointed at where the value opens, which is the line to fix.
 */
export function yamlErrorText(text: string): string | undefined {
  const doc = parseDocument(text);
  const [error] = doc.errors;
  if (!error) return undefined;
  const reason = error.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '');
  const atEnd = text.slice(error.pos[0]).trim() === '';
  const opened = atEnd ? openedBefore(doc, error.pos[0]) : undefined;
  const { line, column } = lineAndColumn(text, opened ?? error.pos[0]);
  return `${reason} at line ${line}, column ${column}${opened === undefined ? '' : ' (still open at the end of the file)'}`;
}

/** Where the innermost value that runs up to `offset` starts (`undefined` when none does). */
function openedBefore(doc: Document, offset: number): number | undefined {
  let start: number | undefined;
  visit(doc, (_key, node) => {
    if (!isNode(node) || !node.range) return;
    const [from, to] = node.range;
    if (from < offset && to >= offset && (start === undefined || from > start)) start = from;
  });
  return start;
}

/** 1-based line and column of `offset`, as editors count them. */
function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset);
  const lineStart = before.lastIndexOf('\n') + 1;
  return { line: before.split('\n').length, column: offset - lineStart + 1 };
}
