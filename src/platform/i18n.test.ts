import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { languageFromAcceptLanguage, parseLanguage, translate } from './i18n.js';

describe('i18n', () => {
  it('translates with parameters in both languages', () => {
    assert.equal(translate('auth.bad_credentials', 'en'), 'The account or password is incorrect');
    assert.equal(translate('auth.bad_credentials', 'vi'), 'Tài khoản hoặc mật khẩu không đúng');
    assert.equal(
      translate('http.rate_limited', 'en', { seconds: 30 }),
      'Too many requests; try again in 30 seconds',
    );
  });

  it('passes through text that is not a catalogue key', () => {
    assert.equal(translate('plain words', 'vi'), 'plain words');
  });

  it('picks the most preferred supported language of Accept-Language', () => {
    assert.equal(languageFromAcceptLanguage('vi-VN,vi;q=0.9,en;q=0.8'), 'vi');
    assert.equal(languageFromAcceptLanguage('fr-FR, en;q=0.5, vi;q=0.7'), 'vi');
    assert.equal(languageFromAcceptLanguage('en-US,en;q=0.9'), 'en');
    assert.equal(languageFromAcceptLanguage('fr, de'), undefined);
    assert.equal(languageFromAcceptLanguage('vi;q=0'), undefined);
    assert.equal(languageFromAcceptLanguage(undefined), undefined);
  });

  it('parses the login language field', () => {
    assert.equal(parseLanguage('vi'), 'vi');
    assert.equal(parseLanguage('VI'), 'vi');
    assert.equal(parseLanguage('en'), 'en');
    assert.equal(parseLanguage('jp'), undefined);
    assert.equal(parseLanguage(3), undefined);
  });
});
