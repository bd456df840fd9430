/**
 * On Node below 22 the AWS SDK warns, once per process, that its releases after January 2027 will need Node 22.
 * The SDK is pinned inside our bundle, so the warning names nothing a stackyard user can act on (docs/cli.md says
 * which Node versions stackyard supports); it is dropped in this process only. Programs and plugins that stackyard
 * starts are other processes and keep their own warnings.
 */
export function dropSdkNodeVersionWarning(): void {
  const emit = process.emitWarning.bind(process) as (...args: unknown[]) => void;
  process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
    const text = typeof warning === 'string' ? warning : warning?.message;
    if (typeof text === 'string' && text.startsWith('NodeVersionSupportWarning')) return;
    emit(warning, ...rest);
  }) as typeof process.emitWarning;
}
