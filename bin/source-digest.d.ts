/** A digest of what dist/ is built from (see source-digest.js); root ends with a slash. */
export function sourceDigest(root: string): string;
