// Which part of a search term the lookup goes by, from the shares of a sample: the choice alone (the
// rows found are checked against the whole term in lists.test.ts, on both databases).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { rareRun, rareWordStart, shareOf, type TermSample, wordStartShare } from './search-sample.js';

/** Shares as in a table of crops named "Rau cải <n> lô 0<5 digits>", with more numbers at 1 M rows. */
const shares: Record<string, number> = {
  'lô ': 1,
  'ô 0': 1,
  ' 00': 0.4,
  '000': 0.04,
  '001': 0.05,
  '012': 0.06,
  '123': 0.004,
};
const share = (trigram: string) => shares[trigram] ?? 0;

describe('rareRun', () => {
  it('looks a term up by its rarest trigram and the neighbours up to the nearest common one', () => {
    assert.equal(rareRun('LÔ 000123', share, false), '000123');
    assert.equal(rareRun('LÔ 000123', share, true), '000123');
  });

  it('keeps within words on PostgreSQL, where pg_trgm pads the words of a pattern', () => {
    const padded = (trigram: string) => (trigram === 'lô ' || trigram === 'ô 0' ? 1 : 0);
    assert.equal(rareRun('LÔ 000123', padded, false), ' 000123');
    assert.equal(rareRun('LÔ 000123', padded, true), '000123');
  });

  it('looks the whole term up when none of its trigrams is common, or it has fewer than three characters', () => {
    assert.equal(
      rareRun('HẤU LONG', () => 0.001, false),
      undefined,
    );
    assert.equal(rareRun('lô', share, false), undefined);
    // Every trigram common: no part of the term is better than the whole.
    assert.equal(
      rareRun('lô 0', () => 1, false),
      undefined,
    );
  });
});

describe('rareWordStart', () => {
  it('takes the rarest run of word characters that follows an ASCII character ending words', () => {
    const starts = (start: string) => ({ cải: 1, lô: 1, '000123': 0 })[start] ?? 0.5;
    assert.equal(rareWordStart('Rau cải lô 000123', starts), '000123');
    assert.equal(
      rareWordStart('cải,lô_000123x', (start) => (start === '000123x' ? 0 : 1)),
      '000123x',
    );
  });

  it('never takes the first word (it may end a longer word of a row) nor one after a letter', () => {
    assert.equal(
      rareWordStart('000123', () => 0),
      undefined,
    );
    assert.equal(
      rareWordStart('lô·000123', () => 0),
      undefined,
    );
  });

  it('stops a run at a character the word index might split at, and takes it only when rare', () => {
    assert.equal(
      rareWordStart('a Ωmega', () => 0),
      undefined,
    );
    assert.equal(
      rareWordStart('a BẮC·x', () => 0),
      'BẮC',
    );
    assert.equal(
      rareWordStart('a bắc', () => 0.5),
      undefined,
    );
  });
});

describe('shares of a sample', () => {
  const sample: TermSample = {
    rows: 4,
    texts: { name: ['rau cải lô 000123', 'rau cải lô 000124', 'xlô 1', 'lôi'].join('\0'), code: 'lô' },
  };

  it('counts the rows holding a trigram, in the columns asked', () => {
    assert.equal(shareOf(sample, ['name'], '000'), 0.5);
    assert.equal(shareOf(sample, ['name'], 'lô '), 0.75);
    assert.equal(shareOf(sample, ['name', 'code'], 'lô'), 1);
    assert.equal(shareOf({ rows: 0, texts: {} }, ['name'], 'lô '), 0);
  });

  it('counts the words that begin with a start, read as the index reads them', () => {
    // "lôi" begins its value; the "lô" of "xlô" begins no word.
    assert.equal(wordStartShare(sample, ['name'], 'LÔ'), 0.75);
    assert.equal(wordStartShare(sample, ['name'], '00012'), 0.5);
    assert.equal(wordStartShare(sample, ['code'], 'lô'), 0.25);
  });
});
