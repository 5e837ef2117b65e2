/** Builds the compiled service (dist/) when it is missing or stale (see test-builds.mjs); says what it did. */
export function buildServiceIfStale(root: string, tag: string, children: Set<unknown>): Promise<string>;
/** Builds web/dist when it is missing or stale (see test-builds.mjs); says what it did. */
export function buildWebIfStale(root: string, children: Set<unknown>): Promise<string>;
