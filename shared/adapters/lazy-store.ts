/**
 * A store whose module is imported on its first call. Every method of a storage port returns a promise, so a proxy
 * can stand in for the store until then: commands that never touch it (`stack ls`) do not load or compile it.
 */
export function lazyStore<T extends object>(load: () => Promise<T>): T {
  let loading: Promise<T> | undefined;
  const store = () => (loading ??= load());
  return new Proxy({} as T, {
    get: (_target, method) => async (...args: unknown[]) => {
      const loaded = await store();
      const fn = (loaded as Record<PropertyKey, unknown>)[method];
      if (typeof fn !== 'function') throw new TypeError(`${String(method)} is not a method of this store`);
      return (fn as (...a: unknown[]) => unknown).apply(loaded, args);
    },
  });
}
