// Case folding exactly as SQLite's FTS5 tokenizers do it (sqlite3Fts5UnicodeFold without removing
// diacritics), and a text as the trigram tokenizer sees it. A substring search that finds candidate
// rows by part of its term checks them against the whole term with this, so a row passes exactly
// when the trigram index would match it. The tables are SQLite's (fts5_unicode2.c, made from an
// early CaseFolding.txt, so they differ from JavaScript's toLowerCase for hundreds of code points);
// fts5-fold.test.ts compares every code point with the FTS5 of the SQLite the service runs on.

/**
 * Folding rules, three numbers each: first code point, flags, length of the range. Flags: the low
 * bit set means only every second code point of the range (from the first) folds; the other bits
 * index FOLD_OFFSETS, the offset (modulo 65536) from a code point to its folded one.
 */
// biome-ignore format: three numbers a rule, six rules a line
const FOLD_RANGES = [
  65, 14, 26,  181, 64, 1,  192, 14, 23,  216, 14, 7,  256, 1, 48,  306, 1, 6,
  313, 1, 16,  330, 1, 46,  376, 116, 1,  377, 1, 6,  383, 104, 1,  385, 50, 1,
  386, 1, 4,  390, 44, 1,  391, 0, 1,  393, 42, 2,  395, 0, 1,  398, 32, 1,
  399, 38, 1,  400, 40, 1,  401, 0, 1,  403, 42, 1,  404, 46, 1,  406, 52, 1,
  407, 48, 1,  408, 0, 1,  412, 52, 1,  413, 54, 1,  415, 56, 1,  416, 1, 6,
  422, 60, 1,  423, 0, 1,  425, 60, 1,  428, 0, 1,  430, 60, 1,  431, 0, 1,
  433, 58, 2,  435, 1, 4,  439, 62, 1,  440, 0, 1,  444, 0, 1,  452, 2, 1,
  453, 0, 1,  455, 2, 1,  456, 0, 1,  458, 2, 1,  459, 1, 18,  478, 1, 18,
  497, 2, 1,  498, 1, 4,  502, 122, 1,  503, 134, 1,  504, 1, 40,  544, 110, 1,
  546, 1, 18,  570, 70, 1,  571, 0, 1,  573, 108, 1,  574, 68, 1,  577, 0, 1,
  579, 106, 1,  580, 28, 1,  581, 30, 1,  582, 1, 10,  837, 36, 1,  880, 1, 4,
  886, 0, 1,  902, 18, 1,  904, 16, 3,  908, 26, 1,  910, 24, 2,  913, 14, 17,
  931, 14, 9,  962, 0, 1,  975, 4, 1,  976, 140, 1,  977, 142, 1,  981, 146, 1,
  982, 144, 1,  984, 1, 24,  1008, 136, 1,  1009, 138, 1,  1012, 130, 1,  1013, 128, 1,
  1015, 0, 1,  1017, 152, 1,  1018, 0, 1,  1021, 110, 3,  1024, 34, 16,  1040, 14, 32,
  1120, 1, 34,  1162, 1, 54,  1216, 6, 1,  1217, 1, 14,  1232, 1, 88,  1329, 22, 38,
  4256, 66, 38,  4295, 66, 1,  4301, 66, 1,  7680, 1, 150,  7835, 132, 1,  7838, 96, 1,
  7840, 1, 96,  7944, 150, 8,  7960, 150, 6,  7976, 150, 8,  7992, 150, 8,  8008, 150, 6,
  8025, 151, 8,  8040, 150, 8,  8072, 150, 8,  8088, 150, 8,  8104, 150, 8,  8120, 150, 2,
  8122, 126, 2,  8124, 148, 1,  8126, 100, 1,  8136, 124, 4,  8140, 148, 1,  8152, 150, 2,
  8154, 120, 2,  8168, 150, 2,  8170, 118, 2,  8172, 152, 1,  8184, 112, 2,  8186, 114, 2,
  8188, 148, 1,  8486, 98, 1,  8490, 92, 1,  8491, 94, 1,  8498, 12, 1,  8544, 8, 16,
  8579, 0, 1,  9398, 10, 26,  11264, 22, 47,  11360, 0, 1,  11362, 88, 1,  11363, 102, 1,
  11364, 90, 1,  11367, 1, 6,  11373, 84, 1,  11374, 86, 1,  11375, 80, 1,  11376, 82, 1,
  11378, 0, 1,  11381, 0, 1,  11390, 78, 2,  11392, 1, 100,  11499, 1, 4,  11506, 0, 1,
  42560, 1, 46,  42624, 1, 24,  42786, 1, 14,  42802, 1, 62,  42873, 1, 4,  42877, 76, 1,
  42878, 1, 10,  42891, 0, 1,  42893, 74, 1,  42896, 1, 4,  42912, 1, 10,  42922, 72, 1,
  65313, 14, 26,
];

const FOLD_OFFSETS = [
  1, 2, 8, 15, 16, 26, 28, 32, 37, 38, 40, 48, 63, 64, 69, 71, 79, 80, 116, 202, 203, 205, 206, 207, 209, 210,
  211, 213, 214, 217, 218, 219, 775, 7264, 10792, 10795, 23228, 23256, 30204, 54721, 54753, 54754, 54756,
  54787, 54793, 54809, 57153, 57274, 57921, 58019, 58363, 61722, 65268, 65341, 65373, 65406, 65408, 65410,
  65415, 65424, 65436, 65439, 65450, 65462, 65472, 65476, 65478, 65480, 65482, 65488, 65506, 65511, 65514,
  65521, 65527, 65528, 65529,
];

/** One code point folded as FTS5 folds it. */
export function fts5FoldCodePoint(c: number): number {
  if (c < 128) return c >= 65 && c <= 90 ? c + 32 : c;
  if (c < 65536) {
    // The last rule starting at or before c (binary search over the rules' first code points).
    let lo = 0;
    let hi = FOLD_RANGES.length / 3 - 1;
    let found = -1;
    while (hi >= lo) {
      const mid = (lo + hi) >> 1;
      if (c >= FOLD_RANGES[mid * 3]!) {
        found = mid;
        lo = mid + 1;
      } else {
        hi = mid - 1;
      }
    }
    if (found < 0) return c;
    const first = FOLD_RANGES[found * 3]!;
    const flags = FOLD_RANGES[found * 3 + 1]!;
    const length = FOLD_RANGES[found * 3 + 2]!;
    if (c < first + length && (flags & 1 & (first ^ c)) === 0)
      return (c + FOLD_OFFSETS[flags >> 1]!) & 0xffff;
    return c;
  }
  // Deseret, the one range beyond the Basic Multilingual Plane that FTS5 folds.
  return c >= 66560 && c < 66600 ? c + 40 : c;
}

/**
 * A text as the FTS5 trigram tokenizer (case_sensitive 0) reads it: each code point folded, NUL
 * characters left out (and U+FFFE, U+FFFF read as U+FFFD). Its trigrams are the index's; a phrase matches where this text holds the
 * term read the same way.
 */
export function trigramText(text: string): string {
  // Printable ASCII (no NUL) folds as toLowerCase folds it.
  if (/^[ -~]*$/.test(text)) return text.toLowerCase();
  let folded = '';
  for (const char of text) {
    const c = char.codePointAt(0)!;
    // SQLite's UTF-8 reader turns the noncharacters U+FFFE and U+FFFF into U+FFFD.
    if (c !== 0) folded += String.fromCodePoint(c === 0xfffe || c === 0xffff ? 0xfffd : fts5FoldCodePoint(c));
  }
  return folded;
}
