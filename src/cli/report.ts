// How a command's failure is told: configuration errors exit 78, usage errors 2, others 1.
import { load } from './lazy.js';
import { UsageError } from './options.js';

export async function reportFailure(err: unknown): Promise<number> {
  const [{ AggregateConfigError }, { AppError }, { translate }] = await Promise.all([
    load.config(),
    load.errors(),
    load.i18n(),
  ]);
  if (err instanceof AggregateConfigError) {
    process.stderr.write(`${err.message}\n`);
    return 78; // EX_CONFIG
  }
  if (err instanceof UsageError) {
    process.stderr.write(`${err.message}\n`);
    return 2;
  }
  if (err instanceof AppError) {
    const fields = err.fieldErrors
      .map((f) => `  - ${f.field} ${translate(f.message, 'en', f.params)}`)
      .join('\n');
    process.stderr.write(`${translate(err.messageKey, 'en', err.params)}${fields ? `\n${fields}` : ''}\n`);
    return 1;
  }
  process.stderr.write(`furrow: ${(err as Error)?.message ?? String(err)}\n`);
  return 1;
}
