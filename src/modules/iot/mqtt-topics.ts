// MQTT topic filters (MQTT 3.1.1 section 4.7): their syntax, whether two of them can match one
// topic (a broker then delivers the message once per subscription, so it would be stored twice),
// and whether a topic matches a filter.

/** Why a topic filter is malformed ('wildcard'), or null when it is a valid filter. */
export function topicFilterProblem(filter: string): 'empty' | 'wildcard' | null {
  if (filter === '') return 'empty';
  const levels = filter.split('/');
  for (const [index, level] of levels.entries()) {
    // "+" and "#" fill a whole level; "#" only as the last one.
    if (level.includes('+') && level !== '+') return 'wildcard';
    if (level.includes('#') && (level !== '#' || index !== levels.length - 1)) return 'wildcard';
  }
  return null;
}

/** Whether a (valid) topic filter matches a topic name. */
export function topicMatches(filter: string, topic: string): boolean {
  const f = filter.split('/');
  const t = topic.split('/');
  // Topics starting with "$" (broker topics) are not matched by a leading wildcard.
  if (topic.startsWith('$') && (f[0] === '+' || f[0] === '#')) return false;
  for (let i = 0; i < f.length; i++) {
    const level = f[i];
    if (level === '#') return true;
    if (i >= t.length) return false;
    if (level !== '+' && level !== t[i]) return false;
  }
  return f.length === t.length;
}

/** Whether some topic name matches both (valid) filters. */
export function filtersOverlap(a: string, b: string): boolean {
  const x = a.split('/');
  const y = b.split('/');
  for (let i = 0; ; i++) {
    const p = x[i];
    const q = y[i];
    // "#" matches the parent level too ("a/#" matches "a"), so it overlaps whatever is left.
    if (p === '#' || q === '#') return true;
    if (p === undefined || q === undefined) return p === q;
    if (p !== '+' && q !== '+' && p !== q) return false;
  }
}
