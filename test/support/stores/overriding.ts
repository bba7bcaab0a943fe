/**
 * A part of a store (tasks, push configs, events…) with some of its methods replaced: the tests' store
 * wrappers inject delays, failures and held writes this way. Every other member reads through, its
 * methods bound to the part.
 */
export function overriding<T extends object>(target: T, overrides: Record<string, unknown>): T {
  return new Proxy(target, {
    get(object, key, receiver) {
      if (typeof key === "string" && overrides[key] !== undefined) return overrides[key];
      const value: unknown = Reflect.get(object, key, receiver);
      return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(object) : value;
    },
  });
}
