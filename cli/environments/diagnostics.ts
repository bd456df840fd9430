/**
 * Diagnostics as ESC's CLI prints them (`cmd/esc/cli/env.go`): a definition's (on `init`, `edit`, `rollback`) in hcl's
 * text form — `Error: <summary>`, the line it is on and that line of the definition — and an opened or set
 * environment's as `<env>:<line>:<column>: <summary>`; both sorted as ESC sorts them.
 */
import { sortDiagnostics, type Diagnostic } from '../../shared/esc/index.js';

/** hcl's DiagnosticTextWriter without colour or wrapping, the source being `yaml` under the name `envName`. */
export function yamlDiagnostics(envName: string, yaml: string, diagnostics: Diagnostic[]): string {
  const lines = yaml.split('\n');
  let out = '';
  for (const d of sortDiagnostics([...diagnostics])) {
    out += `${d.severity === 'warning' ? 'Warning' : 'Error'}: ${d.summary}\n\n`;
    if (!d.range) continue;
    const { begin, end } = d.range;
    if (d.range.environment !== envName && d.range.environment !== '<yaml>') {
      out += `  on ${d.range.environment} line ${begin.line}:\n  (source code not available)\n\n`;
      continue;
    }
    out += `  on ${envName} line ${begin.line}:\n`;
    for (let line = begin.line; line <= Math.max(begin.line, end.line); line++) {
      out += `${String(line).padStart(4)}: ${lines[line - 1] ?? ''}\n`;
    }
    out += '\n';
  }
  return out;
}

/** `<env>:<line>:<column>: <summary>` per diagnostic (ESC's writePropertyEnvironmentDiagnostics). */
export function propertyDiagnostics(diagnostics: Diagnostic[]): string {
  return sortDiagnostics([...diagnostics])
    .map((d) => {
      if (!d.range) return `${d.summary}\n`;
      const at = d.range.begin.line !== 0 ? `${d.range.begin.line}:${d.range.begin.column}:` : '';
      return `${d.range.environment}:${at} ${d.summary}\n`;
    })
    .join('');
}
