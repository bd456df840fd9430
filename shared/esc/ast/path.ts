/** Joins an object key onto a document path the way ESC prints paths: `a.b` for plain keys, `a["b-c"]` otherwise. */
export function joinKey(root: string, key: string): string {
  if (key === '') return root;
  if (!mustEscapeKey(key)) return root === '' ? key : `${root}.${key}`;
  return `${root}["${key.replaceAll('"', '\\"')}"]`;
}

/** True when a key is not a plain identifier (letters, digits not first, underscores). */
export function mustEscapeKey(key: string): boolean {
  return !/^[A-Za-z_][A-Za-z0-9_]*$/.test(key);
}
