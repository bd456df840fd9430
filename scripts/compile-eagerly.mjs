/**
 * Makes V8 compile the module bodies of a bundle eagerly, with the file, instead of on their first run.
 *
 * In a bundle that has lazily imported parts, esbuild wraps each module's top level in a method of an object passed
 * to `__esm` (or `__commonJS` for a CommonJS module), run when the module is first needed. V8 compiles a method
 * lazily: it pre-parses its text with the file, then parses all of it again when it is first called. The start-up
 * file's wrappers hold nearly all of its text and are all run on a start of `stack ls`, so each start parsed the file
 * twice, and on Node 22 the compile cache (which keeps what was compiled with the file) kept none of those bodies. A
 * function expression in parentheses is compiled eagerly (V8's heuristic for functions called at once), so each
 * wrapper method becomes one. Lines keep their number, and columns before each edit their place, so the source map
 * still holds.
 */

const WRAPPER = /^(?:var|let|const) [\w$]+ = __(?:esm|commonJS)\(\{$/;
const METHOD = /^ {2}("(?:[^"\\]|\\.)*")\(([\w$, ]*)\) \{$/;

/**
 * Rewrites each `var init_x = __esm({\n  "path"() {` … `  }\n});` (and `__commonJS`) into
 * `var init_x = __esm({\n  "path": (function() {` … `  })\n});`. Throws when a wrapper does not have that shape, so a
 * change in esbuild's output fails the build rather than leaving the bodies lazy.
 * @param {string} text a bundle esbuild wrote (not minified)
 * @returns {{ text: string, wrappers: number }}
 */
export function compileModuleBodiesEagerly(text) {
  const lines = text.split('\n');
  let wrappers = 0;
  for (let i = 0; i < lines.length; i += 1) {
    if (!WRAPPER.test(lines[i])) continue;
    const method = METHOD.exec(lines[i + 1] ?? '');
    // The wrapper's body is indented, so its first line that is only `});` closes it.
    const close = lines.indexOf('});', i + 2);
    if (!method || close < 0 || lines[close - 1] !== '  }') {
      throw new Error(`compile-eagerly: the module wrapper at line ${i + 1} does not have the shape esbuild gave it when this was written`);
    }
    lines[i + 1] = `  ${method[1]}: (function(${method[2]}) {`;
    lines[close - 1] = '  })';
    wrappers += 1;
    i = close;
  }
  return { text: lines.join('\n'), wrappers };
}
