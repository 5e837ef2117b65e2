// A bound on work running side by side: at most `limit` at once, the rest in the order they came.

export class SideBySide {
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(readonly limit: number) {
    if (!Number.isInteger(limit) || limit < 1)
      throw new Error(`SideBySide: limit must be 1 or more, not ${limit}`);
  }

  /** Running now, and waiting for a turn. */
  get counts(): { running: number; waiting: number } {
    return { running: this.running, waiting: this.waiting.length };
  }

  /** Runs `work` once fewer than `limit` others run; its end, success or failure, frees the turn. */
  async run<T>(work: () => Promise<T>): Promise<T> {
    // A turn that ends is handed to the first waiting, so a newcomer cannot take it in between.
    if (this.running >= this.limit) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.running += 1;
    try {
      return await work();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.running -= 1;
    }
  }
}
