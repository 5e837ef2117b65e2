// A section's own texts, kept in the section's folder (and its JS chunk) instead of the app's
// catalogue: `defineTexts(en, vi)` where the Vietnamese is typed by the English, so a missing
// text does not compile; `useTexts(texts)` gives t() and plural() over the section's keys and the
// app's shared ones (app/i18n.ts), in the chosen language.
import { useMemo } from 'react';
import { type Language, type MessageKey, type Params, useI18n } from './i18n';

export interface SectionTexts<K extends string> {
  en: Readonly<Record<K, string>>;
  vi: Readonly<Record<K, string>>;
}

export function defineTexts<E extends Record<string, string>>(
  en: E,
  vi: Readonly<Record<keyof E & string, string>>,
): SectionTexts<keyof E & string> {
  return { en, vi };
}

type PluralBase<K> = K extends `${infer B}_other` ? B : never;

export interface SectionI18n<K extends string> {
  language: Language;
  setLanguage: (language: Language) => void;
  t: (key: K | MessageKey, params?: Params) => string;
  plural: (key: PluralBase<K | MessageKey>, n: number, params?: Params) => string;
}

export function useTexts<K extends string>(texts: SectionTexts<K>): SectionI18n<K> {
  const app = useI18n();
  const { language } = app;
  return useMemo(() => {
    const own: Readonly<Record<string, string>> = texts[language];
    const rules = new Intl.PluralRules(language);
    const t = (key: K | MessageKey, params: Params = {}): string => {
      const template = own[key];
      if (template === undefined) return app.t(key as MessageKey, params);
      return template.replace(/\{(\w+)\}/g, (whole, name: string) =>
        name in params ? String(params[name]) : whole,
      );
    };
    const plural = (key: PluralBase<K | MessageKey>, n: number, params: Params = {}) => {
      const form = rules.select(n) === 'one' ? 'one' : 'other';
      return t(`${key}_${form}` as K, { n, ...params });
    };
    return { language, setLanguage: app.setLanguage, t, plural };
  }, [app, language, texts]);
}
