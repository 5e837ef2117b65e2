// Keys noted in the last while (e.g. devices whose batch needed the transaction, reading.service.ts).

/** Keys and when each was last noted; at most `kept` of them (past that, all are forgotten). */
export class RecentSet {
  private readonly at = new Map<string, number>();
  constructor(
    private readonly forMs: number,
    private readonly kept: number,
  ) {}
  recently(key: string, now: number): boolean {
    const at = this.at.get(key);
    return at !== undefined && now - at < this.forMs;
  }
  note(key: string, now: number): void {
    if (this.at.size >= this.kept) this.at.clear();
    this.at.set(key, now);
  }
}
