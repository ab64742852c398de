import type { GuardedFetchOptions } from './guarded-fetch.ts';

/**
 * The guarded fetch, with undici loaded at the first server-side fetch rather than at start: a
 * service (or an admin CLI call) whose runs never fetch does not pay for it.
 */
export function lazyGuardedFetch(options: GuardedFetchOptions): typeof globalThis.fetch {
  let loaded: Promise<typeof globalThis.fetch> | undefined;
  return async (input, init) => {
    loaded ??= import('./guarded-fetch.ts').then((module) => module.createGuardedFetch(options));
    return (await loaded)(input, init);
  };
}
