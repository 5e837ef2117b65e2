import { type Kysely, sql } from 'kysely';
import { withId, withTimestamps } from './schema-helpers.js';

export async function up(db: Kysely<any>): Promise<void> {
  await withTimestamps(
    withId(db, db.schema.createTable('tenants'))
      .addColumn('code', 'varchar(63)', (c) => c.notNull().unique())
      .addColumn('name', 'varchar(255)', (c) => c.notNull()),
  ).execute();

  await withTimestamps(
    withId(db, db.schema.createTable('users'))
      .addColumn('tenant_id', 'integer', (c) => c.notNull().references('tenants.id'))
      .addColumn('username', 'varchar(100)', (c) => c.notNull())
      .addColumn('password_hash', 'varchar(255)', (c) => c.notNull())
      .addColumn('name', 'varchar(255)', (c) => c.notNull().defaultTo(''))
      .addColumn('firstname', 'varchar(255)', (c) => c.notNull().defaultTo(''))
      .addColumn('lastname', 'varchar(255)', (c) => c.notNull().defaultTo(''))
      .addColumn('picture', 'text')
      .addColumn('role', 'varchar(16)', (c) => c.notNull().check(sqlIn('role', ['owner', 'staff']))),
  )
    .addColumn('deleted_at', 'bigint')
    .addUniqueConstraint('users_tenant_id_id_key', ['tenant_id', 'id'])
    .addUniqueConstraint('users_tenant_username_key', ['tenant_id', 'username'])
    .execute();

  await withId(db, db.schema.createTable('access_tokens'))
    .addColumn('tenant_id', 'integer', (c) => c.notNull())
    .addColumn('user_id', 'integer', (c) => c.notNull())
    .addColumn('token_hash', 'char(64)', (c) => c.notNull().unique())
    .addColumn('language', 'varchar(8)')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('revoked_at', 'bigint')
    .addForeignKeyConstraint(
      'access_tokens_user_fk',
      ['tenant_id', 'user_id'],
      'users',
      ['tenant_id', 'id'],
      (fk) => fk.onDelete('cascade'),
    )
    .execute();
  await db.schema
    .createIndex('access_tokens_tenant_user_idx')
    .on('access_tokens')
    .columns(['tenant_id', 'user_id'])
    .execute();
  await db.schema.createIndex('access_tokens_expires_idx').on('access_tokens').column('expires_at').execute();

  await withId(db, db.schema.createTable('login_attempts'))
    .addColumn('bucket', 'varchar(400)', (c) => c.notNull())
    .addColumn('failed', 'integer', (c) => c.notNull())
    .addColumn('at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('login_attempts_bucket_at_idx')
    .on('login_attempts')
    .columns(['bucket', 'at'])
    .execute();
  await db.schema.createIndex('login_attempts_at_idx').on('login_attempts').column('at').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['login_attempts', 'access_tokens', 'users', 'tenants']) {
    await db.schema.dropTable(table).execute();
  }
}

function sqlIn(column: string, values: string[]) {
  // Values are constants of this migration, never user input.
  return sql.raw(`${column} in (${values.map((v) => `'${v}'`).join(', ')})`);
}
