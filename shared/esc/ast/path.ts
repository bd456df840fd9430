/** Joins an object key onto a document path the way ESC prints paths: `a.b` for plain keys, `a["b-c"]` otherwise. */
export function joinKey(root: string, key: string): string {
  if (key === '') return root;
  if (!mustEscapeKey(key)) return root === '' ? key : `${root}.${key}`;
  return `${root}["${key.replaceAll('"', '\\"')}"]`;
}

/** True when a key is not a plain identifier (letters, digits not first, underscores). */
function mustEscapeKey(key: string): boolean {
  return !/^[A-Za-z_][A-Za-z0-9_]*$/.test(key);
}

/** Prints a path of keys and indices as ESC prints document paths. */
export function formatPath(path: (string | number)[]): string {
  let out = '';
  for (const part of path) out = typeof part === 'number' ? `${out}[${part}]` : joinKey(out, part);
  return out;
}

/**
 * Reads a property path as Pulumi and ESC write one (`a.b-c[0]["quoted \"key\""]`): names run to the next `.`
 * or `[`; subscripts are numbers or double-quoted keys with `\"` escapes.
 */
export function parsePath(path: string): (string | number)[] {
  const parts: (string | number)[] = [];
  let i = 0;
  while (i < path.length) {
    if (path[i] === '.') i++;
    if (path[i] === '[' && path[i + 1] === '"') {
      let key = '';
      for (i += 2; i < path.length && path[i] !== '"'; i++) key += path[i] === '\\' && path[i + 1] === '"' ? path[++i] : path[i];
      parts.push(key);
      i += 2;
    } else if (path[i] === '[') {
      const close = path.indexOf(']', i);
      parts.push(Number(path.slice(i + 1, close)));
      i = close + 1;
    } else {
      let end = i;
      while (end < path.length && path[end] !== '.' && path[end] !== '[') end++;
      parts.push(path.slice(i, end));
      i = end;
    }
  }
  return parts;
}
