/**
 * A unified diff of two texts as `env diff` prints one (gotextdiff's ToUnified, which ESC uses): three lines of
 * context, hunks joined when their context touches, `\ No newline at end of file` after a last line without one,
 * and nothing at all when the texts are equal.
 */

type Kind = ' ' | '-' | '+';
interface Line {
  kind: Kind;
  text: string;
}

const CONTEXT = 3;

/** Lines with their newlines kept, so a last line without one is known. */
function splitLines(text: string): string[] {
  const lines = text.split(/(?<=\n)/);
  return lines.length === 1 && lines[0] === '' ? [] : lines;
}

/** The edit script from `a` to `b` by longest common subsequence (definitions and values are small), deletions first. */
function editScript(a: string[], b: string[]): Line[] {
  const n = a.length;
  const m = b.length;
  const lcs: Uint32Array[] = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) lcs[i]![j] = a[i] === b[j] ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
  }
  const script: Line[] = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] === b[j]) {
      script.push({ kind: ' ', text: a[i++]! });
      j++;
    } else if (i < n && (j === m || lcs[i + 1]![j]! >= lcs[i]![j + 1]!)) script.push({ kind: '-', text: a[i++]! });
    else script.push({ kind: '+', text: b[j++]! });
  }
  return script;
}

/** The unified diff from `oldText` (named `oldName`) to `newText`; empty when they are equal. */
export function unifiedDiff(oldName: string, oldText: string, newName: string, newText: string): string {
  const script = editScript(splitLines(oldText), splitLines(newText));
  const changed = script.map((l, index) => (l.kind === ' ' ? -1 : index)).filter((index) => index >= 0);
  if (changed.length === 0) return '';
  // Group changes whose context would overlap into one hunk.
  const groups: [number, number][] = [];
  for (const index of changed) {
    const last = groups[groups.length - 1];
    if (last && index - last[1] <= 2 * CONTEXT) last[1] = index;
    else groups.push([index, index]);
  }
  let out = `--- ${oldName}\n+++ ${newName}\n`;
  for (const [first, last] of groups) {
    const start = Math.max(0, first - CONTEXT);
    const end = Math.min(script.length - 1, last + CONTEXT);
    let fromLine = 1;
    let toLine = 1;
    for (const l of script.slice(0, start)) {
      if (l.kind !== '+') fromLine++;
      if (l.kind !== '-') toLine++;
    }
    const lines = script.slice(start, end + 1);
    const fromCount = lines.filter((l) => l.kind !== '+').length;
    const toCount = lines.filter((l) => l.kind !== '-').length;
    out += `@@ ${fromCount > 1 ? `-${fromLine},${fromCount}` : `-${fromLine}`} ${toCount > 1 ? `+${toLine},${toCount}` : `+${toLine}`} @@\n`;
    for (const l of lines) out += `${l.kind}${l.text}${l.text.endsWith('\n') ? '' : '\n\\ No newline at end of file\n'}`;
  }
  return out;
}
