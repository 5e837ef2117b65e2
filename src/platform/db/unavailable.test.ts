import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { isConnectionBroken, isDatabaseUnavailable, unavailableReason } from './unavailable.js';

const withCode = (code: string, message = 'failed', extra: Record<string, unknown> = {}) =>
  Object.assign(new Error(message), { code, ...extra });

describe('database unavailable errors', () => {
  it('names the reason for each kind of PostgreSQL and network failure', () => {
    const cases: [unknown, string][] = [
      [withCode('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:5432'), 'unreachable'],
      [withCode('ENOTFOUND', 'getaddrinfo ENOTFOUND db.internal'), 'unreachable'],
      [
        withCode('ENOENT', 'connect ENOENT /run/postgresql/.s.PGSQL.5432', { syscall: 'connect' }),
        'unreachable',
      ],
      [withCode('ECONNRESET', 'read ECONNRESET'), 'connection_lost'],
      [withCode('EPIPE', 'write EPIPE'), 'connection_lost'],
      [withCode('57P01', 'terminating connection due to administrator command'), 'restarting'],
      [withCode('57P02', 'terminating connection because of crash of another server process'), 'restarting'],
      [withCode('57P03', 'the database system is starting up'), 'restarting'],
      [withCode('08006', 'connection failure'), 'connection_lost'],
      [withCode('08P01', 'protocol violation'), 'connection_lost'],
      [withCode('25P03', 'terminating connection due to idle-in-transaction timeout'), 'connection_lost'],
      [withCode('53300', 'sorry, too many clients already'), 'no_free_connections'],
      [withCode('57014', 'canceling statement due to statement timeout'), 'timeout'],
      [new Error('Connection terminated unexpectedly'), 'connection_lost'],
      [new Error('Connection terminated'), 'connection_lost'],
      [new Error('timeout exceeded when trying to connect'), 'timeout'],
      [new Error('Query read timeout'), 'timeout'],
      [
        new Error('Connection terminated due to connection timeout', { cause: new Error('timeout expired') }),
        'timeout',
      ],
      [new Error('Client has encountered a connection error and is not queryable'), 'connection_lost'],
      [withCode('SQLITE_BUSY', 'database is locked'), 'locked'],
      [withCode('SQLITE_BUSY_SNAPSHOT', 'database is locked'), 'locked'],
      [withCode('SQLITE_LOCKED', 'database table is locked'), 'locked'],
      // Wrapped: the reason of the cause, or of any error of an AggregateError.
      [new Error('Migration failed', { cause: withCode('57P01') }), 'restarting'],
      [
        new AggregateError([withCode('ECONNREFUSED'), withCode('ECONNREFUSED')], 'connect failed'),
        'unreachable',
      ],
    ];
    for (const [err, reason] of cases) {
      assert.equal(unavailableReason(err), reason, (err as Error).message);
      assert.ok(isDatabaseUnavailable(err));
    }
  });

  it('leaves every other error alone', () => {
    for (const err of [
      withCode('23505', 'duplicate key value violates unique constraint'),
      withCode('42601', 'syntax error at or near "selec"'),
      withCode('28P01', 'password authentication failed for user "furrow"'),
      withCode('3D000', 'database "furrow" does not exist'),
      withCode('SQLITE_CONSTRAINT_UNIQUE', 'UNIQUE constraint failed'),
      withCode('ENOENT', 'no such file', { syscall: 'open' }),
      new Error('Connection refused by policy'),
      new TypeError('x is not a function'),
      { message: 'Query read timeout' },
      'Connection terminated',
      null,
      undefined,
    ]) {
      assert.equal(isDatabaseUnavailable(err), false, String((err as Error)?.message ?? err));
    }
  });

  it('tells a connection that must be destroyed from one that can be reused', () => {
    assert.ok(isConnectionBroken(new Error('Query read timeout')));
    assert.ok(isConnectionBroken(new Error('Connection terminated unexpectedly')));
    assert.ok(isConnectionBroken(withCode('57P01')));
    // The server cancelled the statement and the connection is ready for the next one.
    assert.equal(isConnectionBroken(withCode('57014')), false);
    assert.equal(isConnectionBroken(withCode('23505')), false);
  });

  describe('real drivers', () => {
    const dir = mkdtempSync(join(tmpdir(), 'furrow-unavailable-'));
    after(() => rmSync(dir, { recursive: true, force: true }));

    it('SQLite: a write while another connection holds the write lock', () => {
      const file = join(dir, 'locked.db');
      const holder = new SQLite(file);
      holder.pragma('journal_mode = WAL');
      holder.exec('create table t (x integer)');
      const writer = new SQLite(file, { timeout: 50 });
      try {
        holder.exec('begin immediate');
        holder.exec('insert into t values (1)');
        let caught: unknown;
        try {
          writer.exec('insert into t values (2)');
        } catch (err) {
          caught = err;
        }
        assert.equal(unavailableReason(caught), 'locked');
      } finally {
        holder.exec('rollback');
        writer.close();
        holder.close();
      }
    });

    it('pg: nothing listens on the port', async () => {
      const server = createServer();
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const { port } = server.address() as { port: number };
      await new Promise<void>((resolve) => server.close(() => resolve()));
      const client = new pg.Client({ host: '127.0.0.1', port, user: 'x', database: 'x' });
      const err = await client.connect().then(
        () => undefined,
        (e: unknown) => e,
      );
      assert.equal(unavailableReason(err), 'unreachable');
    });

    it('pg: a server that accepts the connection and never answers', async () => {
      const sockets: import('node:net').Socket[] = [];
      const server = createServer((socket) => sockets.push(socket));
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const { port } = server.address() as { port: number };
      const pool = new pg.Pool({
        host: '127.0.0.1',
        port,
        user: 'x',
        database: 'x',
        connectionTimeoutMillis: 200,
      });
      try {
        const err = await pool.connect().then(
          () => undefined,
          (e: unknown) => e,
        );
        assert.equal(unavailableReason(err), 'timeout');
      } finally {
        await pool.end();
        for (const socket of sockets) socket.destroy();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      }
    });
  });
});
