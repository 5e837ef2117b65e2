// Readings as the API answers them: a stored reading, and the outcome of a batch sent in.
import { isoTime } from '../../platform/dates.js';
import { formatFieldErrors } from '../../platform/http/error-shape.js';
import type { Language } from '../../platform/i18n.js';
import type { StoredReading } from './reading.repository.js';
import type { ReadingResult } from './reading.service.js';

export function toReadingAnswer(row: StoredReading) {
  return { ...row, recorded_at: isoTime(row.recorded_at), received_at: isoTime(row.received_at) };
}

/** Counts and one result per reading sent, a rejected one's errors in the caller's language. */
export function toIngestionAnswer(results: ReadingResult[], language: Language) {
  const rejected = results.filter((r) => r.status === 'rejected').length;
  return {
    data: {
      accepted: results.length - rejected,
      rejected,
      results: results.map((r) =>
        r.status === 'accepted' ? r : { ...r, errors: formatFieldErrors(r.errors, language) },
      ),
    },
  };
}
