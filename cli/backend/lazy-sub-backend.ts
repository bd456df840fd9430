/**
 * A sub-backend whose implementation is loaded on first call. The local and HTTP backends are part of every command's
 * start-up file (test/cli/startup-modules.test.ts caps it), and most commands never touch environments, access, hooks,
 * identity, approvals or policy: each of those lives in its own chunk, imported when one of its methods is called.
 * Every method of a sub-backend returns a promise, so the deferral is invisible to callers.
 */
export function lazySubBackend<T extends object>(load: () => Promise<T>): T {
  let loaded: Promise<T> | undefined;
  return new Proxy({} as T, {
    get(_target, name) {
      // Not thenable: `await backend.hooks()` must give the sub-backend itself, not call a method named `then`.
      if (name === 'then') return undefined;
      return async (...args: unknown[]) => {
        const implementation = await (loaded ??= load());
        return (implementation[name as keyof T] as (...a: unknown[]) => Promise<unknown>)(...args);
      };
    },
  });
}
