// Text both databases store as sent: PostgreSQL cannot hold U+0000, and an unpaired UTF-16
// surrogate ("\ud800") becomes invalid UTF-8 on SQLite and U+FFFD on PostgreSQL.

// An ES2024 string method, present in Node 20 (V8 11.3) though not in this project's `lib`.
declare global {
  interface String {
    isWellFormed(): boolean;
  }
}

/** Whether a text can be stored as sent on both databases: no NUL, no unpaired surrogate. */
export function isStorableText(text: string): boolean {
  return !text.includes('\u0000') && text.isWellFormed();
}
