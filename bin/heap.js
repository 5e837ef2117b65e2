// V8 settings of a `furrow serve` process, set from bin/furrow.js before the service loads. Each is
// read by V8 when it is needed (at every collection, at every WebAssembly compilation), so it can be
// set once the process runs; a value given in NODE_OPTIONS or on node's command line is kept.
//
// --heap-growing-percent: V8 lets the old generation grow to as much as four times what survived its
// last full collection before it collects again: a process whose live heap is 45 MB was seen at
// 100-120 MB of old generation under heavy writes, mostly garbage. A fixed growth of 50 % collects
// sooner (a full collection is mostly concurrent marking, a few ms of pause) and keeps the peak near
// the live heap.
//
// --liftoff-only: the only WebAssembly a process runs is undici's HTTP parser (llhttp), used by every
// webhook send. V8 first compiles it with its baseline compiler (Liftoff) and, once the parser is
// hot, again with its optimizing one, whose register allocation of the parser's one huge function
// took about 27 MB for a moment: the peak RSS of a process starting a drain. The baseline code
// parses the receivers' short answers at no CPU cost that a drain shows (bench/README.md).
export const HEAP_GROWING_PERCENT = 50;

/** The V8 flags `furrow serve` sets itself, each with the pattern of the flag it yields to. */
const SERVE_FLAGS = [
  { flag: `--heap-growing-percent=${HEAP_GROWING_PERCENT}`, given: /^--heap[-_]growing[-_]percent(=|$)/ },
  { flag: '--liftoff-only', given: /^--(no[-_])?liftoff[-_]only$/ },
];

/** The V8 flags to set for these CLI arguments, leaving out those node was started with. */
export function serveV8Flags(
  args,
  execArgv = process.execArgv,
  nodeOptions = process.env.NODE_OPTIONS ?? '',
) {
  if (args[0] !== 'serve') return [];
  const started = [...execArgv, ...nodeOptions.split(/\s+/)];
  return SERVE_FLAGS.filter(({ given }) => !started.some((flag) => given.test(flag))).map(({ flag }) => flag);
}
