/**
 * The words of a pull request preview's result as posted back to the git host: a one-line description (GitHub's
 * commit status takes 140 characters) and a Markdown comment, each with pass or fail, the changes the preview
 * found and a link to the run in the console.
 */

/** What a finished pull request preview found. */
export interface PreviewResult {
  stack: string;
  passed: boolean;
  /** The preview's `resourceChanges` (Pulumi's op names: create, update, delete, replace, same…). */
  changes: Record<string, number>;
  /** Why the run failed, when it did. */
  failure?: string;
  commit: string;
  /** The run's version, and its page in the console when the service knows its own URL (not in every process). */
  version: number;
  runUrl?: string;
}

/** The changes a comment lists, in Pulumi's summary order; `same` is said as unchanged. */
const SHOWN: readonly [op: string, words: string][] = [
  ['create', 'to create'],
  ['update', 'to update'],
  ['replace', 'to replace'],
  ['delete', 'to delete'],
  ['same', 'unchanged'],
];

/** `1 to create, 2 to update, 0 to delete`: create, update and delete always, the others when there are any. */
export function changesLine(changes: Record<string, number>): string {
  return SHOWN.filter(([op]) => op === 'create' || op === 'update' || op === 'delete' || (changes[op] ?? 0) > 0)
    .map(([op, words]) => `${changes[op] ?? 0} ${words}`)
    .join(', ');
}

/** The commit status's description: at most 140 characters, as GitHub requires. */
export function statusDescription(result: PreviewResult): string {
  const text = result.passed ? `Preview passed: ${changesLine(result.changes)}` : `Preview failed: ${result.failure ?? 'see the run'}`;
  return text.length <= 140 ? text : `${text.slice(0, 139)}…`;
}

/** The pull (merge) request comment, in Markdown. */
export function commentBody(result: PreviewResult): string {
  const lines = [
    `**Stackyard preview of \`${result.stack}\` ${result.passed ? 'passed' : 'failed'}** at ${result.commit.slice(0, 12)}`,
    '',
    result.passed ? `Changes: ${changesLine(result.changes)}.` : `Why: ${(result.failure ?? 'the run failed').slice(0, 500)}`,
    '',
    result.runUrl ? `[View the run](${result.runUrl})` : `Deployment ${result.version} of the stack.`,
  ];
  return lines.join('\n');
}
