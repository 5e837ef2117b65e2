// The Webhooks section's own words for its second-stage parts, in English and Vietnamese (the
// first-stage words are in the app's catalogue, app/i18n.ts). Two groups: the owner's controls
// (pause, recover, rotation, headers, filters, tests of any kind) and the insight parts (log
// filters, stats, the event catalogue).
import { defineTexts } from '../../app/texts';

const controlsEn = {
  'controls.placeholder': '',
};

const controlsVi: Record<keyof typeof controlsEn, string> = {
  'controls.placeholder': '',
};

const insightEn = {
  'insight.placeholder': '',
};

const insightVi: Record<keyof typeof insightEn, string> = {
  'insight.placeholder': '',
};

export const texts = defineTexts({ ...controlsEn, ...insightEn }, { ...controlsVi, ...insightVi });
