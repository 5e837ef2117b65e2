import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { describe, it } from 'node:test';
import type pg from 'pg';
import { createPostgresPool, kyselyPool } from './postgres-pool.js';

/** A pooled client whose statements answer as told, recording how it is released. */
function fakePool(answers: (() => Promise<unknown>)[]) {
  const releases: (boolean | Error | undefined)[] = [];
  const sent: string[] = [];
  const client = {
    query: async (text: string) => {
      sent.push(text);
      const answer = answers.shift();
      if (!answer) throw new Error('no answer scripted');
      return answer();
    },
    release: (err?: boolean | Error) => {
      releases.push(err);
    },
  };
  const pool = { connect: async () => client, end: async () => {} } as unknown as pg.Pool;
  return { pool, releases, sent };
}

const rows = () => Promise.resolve({ command: 'SELECT', rowCount: 1, rows: [{ x: 1 }] });

describe('the pool Kysely uses', () => {
  it('returns a healthy connection to the pool', async () => {
    const { pool, releases } = fakePool([rows, rows]);
    const connection = await kyselyPool(pool).connect();
    await connection.query('select 1', []);
    await connection.query('select 2', []);
    connection.release();
    assert.deepEqual(releases, [false]);
  });

  it('keeps a connection after an ordinary SQL error or a statement the server cancelled', async () => {
    const duplicate = Object.assign(new Error('duplicate key'), { code: '23505' });
    const cancelled = Object.assign(new Error('canceling statement due to statement timeout'), {
      code: '57014',
    });
    const { pool, releases } = fakePool([
      () => Promise.reject(duplicate),
      () => Promise.reject(cancelled),
      rows,
    ]);
    const connection = await kyselyPool(pool).connect();
    await assert.rejects(connection.query('insert', []), duplicate);
    await assert.rejects(connection.query('select pg_sleep(60)', []), cancelled);
    await connection.query('select 1', []);
    connection.release();
    assert.deepEqual(releases, [false]);
  });

  it('destroys a connection whose statement timed out, failing what follows at once', async () => {
    const timeout = new Error('Query read timeout');
    const { pool, releases, sent } = fakePool([() => Promise.reject(timeout), rows]);
    const connection = await kyselyPool(pool).connect();
    await assert.rejects(connection.query('update crops set name = $1', []), timeout);
    // The transaction's rollback is not queued behind the statement that never came back.
    await assert.rejects(connection.query('rollback', []), timeout);
    assert.deepEqual(sent, ['update crops set name = $1']);
    connection.release();
    assert.deepEqual(releases, [true]);
  });

  it('destroys a connection that lost its server', async () => {
    const lost = new Error('Connection terminated unexpectedly');
    const { pool, releases } = fakePool([() => Promise.reject(lost)]);
    const connection = await kyselyPool(pool).connect();
    await assert.rejects(connection.query('select 1', []), lost);
    connection.release();
    assert.deepEqual(releases, [true]);
  });

  it('listens for errors on every connection it opens, checked out or idle', () => {
    const pool = createPostgresPool(
      'postgres://x@127.0.0.1:1/x',
      2,
      { connectMs: 100, statementMs: 1000, idleInTransactionMs: 1000 },
      { getTypeParser: () => (value: string) => value } as unknown as pg.CustomTypesConfig,
    );
    assert.equal(pool.listenerCount('error'), 1);
    const client = new EventEmitter();
    pool.emit('connect', client);
    // Without a listener this would throw: an 'error' event nobody listens to ends the process.
    client.emit('error', new Error('terminating connection due to administrator command'));
    assert.equal(client.listenerCount('error'), 1);
    assert.equal(pool.options.connectionTimeoutMillis, 100);
    assert.equal((pool.options as { statement_timeout?: number }).statement_timeout, 1000);
    assert.equal((pool.options as { query_timeout?: number }).query_timeout, 2000);
    assert.equal(
      (pool.options as { idle_in_transaction_session_timeout?: number }).idle_in_transaction_session_timeout,
      1000,
    );
  });
});
