// Where the diary was (its view, week and filters), so a form goes back to the same place.
export interface DiarySearch {
  view?: 'week' | 'list';
  /** Monday of the week shown, YYYY-MM-DD. */
  week?: string;
  season?: number;
  stage?: number;
  person?: number;
  status?: 'open' | 'done';
  /** Days, YYYY-MM-DD. */
  from?: string;
  to?: string;
}

let last: DiarySearch = {};

export function rememberDiarySearch(search: DiarySearch): void {
  last = search;
}

export function lastDiarySearch(): DiarySearch {
  return last;
}

const positive = (value: unknown) => {
  const n = Number(value);
  return Number.isInteger(n) && n > 0 ? n : undefined;
};
const day = (value: unknown) =>
  typeof value === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(value) ? value : undefined;

/** The diary's search parameters as typed values; anything unreadable is left out. */
export function readDiarySearch(raw: Record<string, unknown>): DiarySearch {
  const search: DiarySearch = {
    view: raw.view === 'list' ? 'list' : raw.view === 'week' ? 'week' : undefined,
    week: day(raw.week),
    season: positive(raw.season),
    stage: positive(raw.stage),
    person: positive(raw.person),
    status: raw.status === 'open' || raw.status === 'done' ? raw.status : undefined,
    from: day(raw.from),
    to: day(raw.to),
  };
  return Object.fromEntries(Object.entries(search).filter(([, v]) => v !== undefined)) as DiarySearch;
}
