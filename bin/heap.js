// V8 settings of a `furrow serve` process, set from bin/furrow.js before the service loads.
//
// V8 lets the old generation grow to as much as four times what survived its last full collection
// before it collects again: a process whose live heap is 45 MB was seen at 100-120 MB of old
// generation under heavy writes, mostly garbage. A fixed growth of 50 % collects sooner (a full
// collection is mostly concurrent marking, a few ms of pause) and keeps the peak near the live heap.
// The flag is read at every collection, so it can be set once the process runs; a value given in
// NODE_OPTIONS or on node's command line is kept.
export const HEAP_GROWING_PERCENT = 50;

/** The V8 flags to set for these CLI arguments, leaving out those node was started with. */
export function serveHeapFlags(
  args,
  execArgv = process.execArgv,
  nodeOptions = process.env.NODE_OPTIONS ?? '',
) {
  if (args[0] !== 'serve') return [];
  const given = [...execArgv, ...nodeOptions.split(/\s+/)].some((flag) =>
    /^--heap[-_]growing[-_]percent(=|$)/.test(flag),
  );
  return given ? [] : [`--heap-growing-percent=${HEAP_GROWING_PERCENT}`];
}
