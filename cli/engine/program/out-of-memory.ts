/**
 * Recognises a Node.js program that ran out of memory, as `pulumi-language-nodejs` does (its `oomSniffer`): V8
 * prints `<--- Last few GCs --->` on stderr before it aborts, or, with the debugger API hooked, a failed scope
 * assertion that hides the usual text. The program's exit is then reported with Pulumi's advice about `nodeargs`.
 */

/** Pulumi's advice, word for word, appended to the exit message when the program ran out of memory. */
export const OUT_OF_MEMORY_ADVICE =
  'Detected a possible out of memory error. Consider increasing the memory available to the nodejs process ' +
  'by setting the `nodeargs` runtime option in Pulumi.yaml to `nodeargs: --max-old-space-size=<size>` where ' +
  '`<size>` is the maximum memory in megabytes that can be allocated to nodejs. ' +
  'See https://www.pulumi.com/docs/concepts/projects/project-file/#runtime-options';

const MARKERS = ['<--- Last few GCs --->', 'Check failed: needs_context && current_scope_ == closure_scope_'];

/** Watches the program's stderr lines; `detected` once a line shows V8 running out of heap. */
export class OutOfMemorySniffer {
  detected = false;

  /** Looks at one line of the program's stderr. */
  scan(line: string): void {
    if (!this.detected && MARKERS.some((m) => line.includes(m))) this.detected = true;
  }
}

/**
 * The error of a program that exited unsuccessfully, in Pulumi's words: `Program exited with non-zero exit code: N`
 * (a process ended by a signal has Go's exit code -1), with the advice when it ran out of memory.
 */
export function nonZeroExitMessage(code: number | null, outOfMemory: boolean): string {
  const text = `Program exited with non-zero exit code: ${code ?? -1}`;
  return outOfMemory ? `${text}. ${OUT_OF_MEMORY_ADVICE}` : text;
}
