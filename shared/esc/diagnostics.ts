/** A position in an environment definition: 1-based line and column (in characters), 0-based byte offset. */
export interface Pos {
  line: number;
  column: number;
  byte: number;
}

/** A source range inside one environment's definition (`environment` names the environment, as in ESC). */
export interface Range {
  environment: string;
  begin: Pos;
  end: Pos;
}

/** ESC's two severities (hcl's numbering: 1 is an error, 2 a warning). */
export type Severity = 'error' | 'warning';

/** A problem found while loading, checking or evaluating an environment, with the range and document path it is about. */
export interface Diagnostic {
  severity: Severity;
  summary: string;
  /** Absent when the problem has no place in the source (e.g. a YAML syntax error the parser could not locate). */
  range?: Range;
  /** The document path of the node the problem is about, e.g. `values.foo["fn::join"][1]`. */
  path: string;
}

/** An error diagnostic at `range`. */
export function errorAt(range: Range | undefined, summary: string, path: string): Diagnostic {
  return range === undefined ? { severity: 'error', summary, path } : { severity: 'error', summary, range, path };
}

/** True when any diagnostic is an error. */
export function hasErrors(diags: readonly Diagnostic[]): boolean {
  return diags.some((d) => d.severity === 'error');
}

/** Orders diagnostics as ESC's tools do: unplaced first (by summary), then by environment, line and column. */
export function sortDiagnostics(diags: Diagnostic[]): Diagnostic[] {
  return diags.sort((a, b) => {
    if (a.range === undefined || b.range === undefined) {
      if (a.range === undefined && b.range === undefined) return a.summary < b.summary ? -1 : a.summary > b.summary ? 1 : 0;
      return a.range === undefined ? -1 : 1;
    }
    if (a.range.environment !== b.range.environment) return a.range.environment < b.range.environment ? -1 : 1;
    if (a.range.begin.line !== b.range.begin.line) return a.range.begin.line - b.range.begin.line;
    return a.range.begin.column - b.range.begin.column;
  });
}
