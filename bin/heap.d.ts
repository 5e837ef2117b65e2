/** The V8 flags `furrow serve` sets itself (see heap.js), leaving out those node was started with. */
export function serveV8Flags(
  args: readonly string[],
  execArgv?: readonly string[],
  nodeOptions?: string,
): string[];
export const HEAP_GROWING_PERCENT: number;
