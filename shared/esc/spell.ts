/** The candidate nearest to `x` by edit distance, ignoring case and underscores, within half of x's length; "" if none. */
export function nearestName(x: string, candidates: string[]): string {
  const target = fold(x);
  let best = '';
  let bestDistance = Math.floor((target.length + 1) / 2);
  for (const c of [...candidates].sort()) {
    const d = levenshtein(target, fold(c));
    if (d < bestDistance) {
      bestDistance = d;
      best = c;
    }
  }
  return best;
}

function fold(s: string): string {
  return s.replaceAll('_', '').toLowerCase();
}

/** The Levenshtein edit distance between two strings. */
export function levenshtein(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0];
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const current = row[j];
      row[j] = Math.min(prev + (a[i - 1] === b[j - 1] ? 0 : 1), row[j - 1] + 1, row[j] + 1);
      prev = current;
    }
  }
  return row[b.length];
}
