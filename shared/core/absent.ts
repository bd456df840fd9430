/**
 * Stands in for a port or service a process was built without (a Lambda function whose routes never use it, see
 * docs/deploy.md, "What each function bundles"): any method call fails with an error naming what is missing. Only a
 * request that reached the wrong function can get here, and the router refuses those before they run.
 */
export function absent<T extends object>(what: string): T {
  return new Proxy({} as T, {
    get(_target, member) {
      // Not a thenable: awaiting or returning it from an async function must not call `then`.
      if (member === 'then') return undefined;
      return () => {
        throw new Error(`This function was built without the ${what}; ${String(member)} cannot run here.`);
      };
    },
  });
}
