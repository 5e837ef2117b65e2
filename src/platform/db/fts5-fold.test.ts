// The folding the substring search checks its candidates with, against the FTS5 trigram tokenizer
// of the SQLite the service runs on: every code point of the planes that have case (0 and 1) and a
// sample of the rest, each read as the third character of a trigram.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import SQLite from 'better-sqlite3';
import { trigramText } from './fts5-fold.js';

it('folds every code point as the FTS5 trigram tokenizer does', () => {
  const sqlite = new SQLite(':memory:');
  try {
    sqlite.exec(`
      create virtual table t using fts5(x, tokenize = 'trigram case_sensitive 0');
      create virtual table terms using fts5vocab(t, 'instance');`);
    const insert = sqlite.prepare('insert into t (rowid, x) values (?, ?)');
    const codePoints: number[] = [];
    for (let c = 1; c <= 0x10ffff; c += c < 0x20000 ? 1 : 97) {
      if (c < 0xd800 || c > 0xdfff) codePoints.push(c);
    }
    sqlite.transaction(() => {
      for (const c of codePoints) insert.run(c, `ab${String.fromCodePoint(c)}`);
    })();
    const read = sqlite.prepare('select term, doc from terms').raw();
    for (const [term, doc] of read.iterate() as Iterable<[string, number]>) {
      const folded = [...term][2];
      const ours = trigramText(String.fromCodePoint(doc));
      assert.equal(
        ours,
        folded,
        `U+${doc.toString(16)}: FTS5 reads it as U+${folded?.codePointAt(0)?.toString(16)}`,
      );
    }
    assert.equal(read.all().length, codePoints.length);
  } finally {
    sqlite.close();
  }
});

it('reads a text as the trigram tokenizer does: folded, without NUL characters', () => {
  assert.equal(trigramText('LÔ 000123'), 'lô 000123');
  assert.equal(trigramText('ĐÀ LẠT'), 'đà lạt');
  // FTS5 folds by an early CaseFolding.txt: the long s and the final sigma fold, Cherokee does not.
  assert.equal(trigramText('ſΣς'), 'sσσ');
  assert.equal(trigramText('Ꭰ'), 'Ꭰ');
  assert.equal(trigramText('a\0B\0c'), 'abc');
  assert.equal(trigramText('x\ufffe'), 'x\ufffd');
  assert.equal(trigramText('Mixed Case, plain ASCII!'), 'mixed case, plain ascii!');
});
