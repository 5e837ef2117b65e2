// Background services of `furrow serve` (roles all and worker): started after the app is ready,
// stopped gracefully on SIGTERM before the database closes.

export interface BackgroundService {
  readonly name: string;
  start(): Promise<void>;
  /** Finishes or releases the work in flight, then resolves. */
  stop(): Promise<void>;
}

export async function startAll(services: readonly BackgroundService[]): Promise<void> {
  const started: BackgroundService[] = [];
  try {
    for (const service of services) {
      await service.start();
      started.push(service);
    }
  } catch (err) {
    await stopAll(started);
    throw err;
  }
}

export async function stopAll(services: readonly BackgroundService[]): Promise<void> {
  await Promise.allSettled([...services].reverse().map((service) => service.stop()));
}
