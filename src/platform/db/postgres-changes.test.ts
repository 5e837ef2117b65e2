// The change versions of a PostgreSQL process: none until it listens, moved by a NOTIFY from any
// connection, none again once its connection is lost, and a new epoch when it listens again.
import assert from 'node:assert/strict';
import { type AddressInfo, connect, createServer, type Socket } from 'node:net';
import { after, before, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { forEachDialect } from '../../../test/support/databases.js';
import { CHANGES_APPLICATION_NAME, PostgresChanges } from './postgres-changes.js';

async function until(
  what: string,
  check: () => boolean | Promise<boolean>,
  timeoutMs = 5_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(10);
  }
}

forEachDialect('change versions over LISTEN/NOTIFY', (database) => {
  if (database.dialect !== 'postgres') return;
  let other: pg.Client;
  const states: string[] = [];
  let changes: PostgresChanges;

  before(async () => {
    other = new pg.Client({ connectionString: database.url });
    // The suite's database is dropped (its sessions ended) before this file's after hook runs.
    other.on('error', () => {});
    await other.connect();
    changes = new PostgresChanges(
      { connectionString: database.url },
      { retryMs: 50, pingEveryMs: 100, pingTimeoutMs: 500, onState: (state) => states.push(state) },
    );
  });
  after(async () => {
    await changes.close();
    await other.end();
  });

  it('has no version until it listens, then one that moves with each NOTIFY of its topic', async () => {
    assert.equal(changes.version('auth'), undefined);
    await until('listening', () => changes.version('auth') !== undefined);
    const first = changes.version('auth')!;
    const elsewhere = changes.version('other')!;
    await other.query(`select pg_notify('furrow_changes', 'auth')`);
    await until('the notice', () => changes.version('auth') === first + 1);
    assert.equal(changes.version('other'), elsewhere);
    // A notice inside a transaction that rolls back is never delivered.
    await other.query('begin');
    await other.query(`select pg_notify('furrow_changes', 'auth')`);
    await other.query('rollback');
    await other.query(`select pg_notify('furrow_changes', 'other')`);
    await until('the later notice', () => changes.version('other') === elsewhere + 1);
    assert.equal(changes.version('auth'), first + 1);
  });

  it('has no version while its connection is lost, and a new one once it listens again', async () => {
    const before = changes.version('auth')!;
    const { rowCount } = await other.query(
      'select pg_terminate_backend(pid) from pg_stat_activity where application_name = $1 and datname = current_database()',
      [CHANGES_APPLICATION_NAME],
    );
    assert.equal(rowCount, 1);
    await until('the loss', () => changes.version('auth') === undefined);
    await until('listening again', () => changes.version('auth') !== undefined);
    assert.ok(changes.version('auth')! > before, 'what was read before the loss is no longer trusted');
    assert.deepEqual(states, ['lost', 'listening']);
  });

  it('notices a connection that stops answering, by its ping, and listens on a new one', async () => {
    // A proxy in front of the server: its connections can go silent, as over a lost network.
    const server = new URL(database.url);
    const frozen = new Set<Socket>();
    let freeze = false;
    const proxy = createServer((inbound) => {
      const outbound = connect(Number(server.port || 5432), server.hostname);
      inbound.on('data', (chunk) => {
        if (!freeze) outbound.write(chunk);
      });
      outbound.on('data', (chunk) => {
        if (!freeze) inbound.write(chunk);
      });
      const end = () => {
        inbound.destroy();
        outbound.destroy();
      };
      inbound.on('error', end).on('close', end);
      outbound.on('error', end).on('close', end);
      frozen.add(inbound);
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    const { port } = proxy.address() as AddressInfo;
    const seen: string[] = [];
    const proxied = new URL(database.url);
    proxied.port = String(port);
    const viaProxy = new PostgresChanges(
      { connectionString: proxied.toString() },
      { retryMs: 50, pingEveryMs: 100, pingTimeoutMs: 300, onState: (state) => seen.push(state) },
    );
    try {
      viaProxy.start();
      await until('listening', () => viaProxy.isListening);
      freeze = true;
      await until('the silent connection noticed', () => viaProxy.version('auth') === undefined);
      assert.deepEqual(seen, ['lost']);
      for (const socket of frozen) socket.destroy();
      freeze = false;
      await until('listening again', () => viaProxy.isListening);
      const now = viaProxy.version('auth')!;
      await other.query(`select pg_notify('furrow_changes', 'auth')`);
      await until('a notice on the new connection', () => viaProxy.version('auth') === now + 1);
    } finally {
      await viaProxy.close();
      proxy.close();
      for (const socket of frozen) socket.destroy();
    }
  });
});
