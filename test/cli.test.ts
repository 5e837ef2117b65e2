// The furrow CLI as an operator uses it: real processes, real databases, real HTTP.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { client, request } from './support/app.js';
import { forEachDialect } from './support/databases.js';
import { loginToken } from './support/factories.js';
import { runFurrow, startFurrow } from './support/processes.js';

describe('furrow CLI', () => {
  it('prints help for every command', async () => {
    const top = await runFurrow(['--help']);
    assert.equal(top.code, 0);
    for (const command of [
      'serve',
      'migrate',
      'tenant create',
      'user create',
      'user set-password',
      '--version',
    ])
      assert.match(top.stdout, new RegExp(command));
    for (const args of [
      ['serve', '--help'],
      ['migrate', '--help'],
      ['tenant', 'create', '--help'],
      ['user', 'create', '--help'],
      ['user', 'set-password', '--help'],
    ]) {
      const res = await runFurrow(args);
      assert.equal(res.code, 0, `${args.join(' ')}: ${res.stderr}`);
      assert.match(res.stdout, /^Usage: furrow /);
    }
    assert.match((await runFurrow(['tenant', 'create', '--help'])).stdout, /--demo/);
    assert.match(top.stdout, /--demo/);
  });

  it('prints its version', async () => {
    const { version } = JSON.parse(readFileSync(join(import.meta.dirname, '..', 'package.json'), 'utf8'));
    for (const flag of ['--version', '-v']) {
      const res = await runFurrow([flag]);
      assert.equal(res.code, 0, res.stderr);
      assert.equal(res.stdout, `furrow ${version}\n`);
    }
  });

  it('refuses an unknown command or option with usage and exit code 2', async () => {
    const unknown = await runFurrow(['plough']);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /Unknown command "plough"/);
    const badOption = await runFurrow(['migrate', '--fast']);
    assert.equal(badOption.code, 2);
    assert.match(badOption.stderr, /--fast/);
    const missing = await runFurrow(['tenant', 'create', '--code', 'x']);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /Missing --name/);
  });

  it('stops on a bad configuration value, naming the variable and what is allowed', async () => {
    const res = await runFurrow(['serve'], { env: { PORT: 'abc', TOKEN_TTL_SECONDS: '5' } });
    assert.equal(res.code, 78);
    assert.match(res.stderr, /PORT: "abc" is not a port number from 0 to 65535/);
    assert.match(res.stderr, /TOKEN_TTL_SECONDS: "5" is out of range/);
  });

  describe('npm start on an empty data folder', () => {
    const dir = mkdtempSync(join(tmpdir(), 'furrow-fresh-'));
    after(() => rmSync(dir, { recursive: true, force: true }));

    it('creates the demo tenant, prints the password and a login curl that works', async () => {
      const server = await startFurrow(['serve'], { cwd: dir, timeoutMs: 60_000 });
      try {
        const output = server.output();
        assert.match(output, /Created tenant "demo" with owner "owner"/);
        const password = /password: (\S+)/.exec(output)?.[1];
        assert.ok(password);
        const curlBody = /-d '(\{[^']+\})'/.exec(output)?.[1];
        assert.ok(curlBody, 'prints a ready-to-paste curl');
        const res = await request(server.url, 'POST', '/api/auth/login', { json: JSON.parse(curlBody) });
        assert.equal(res.body.meta.status_code, 0);
        assert.equal(res.body.data.tenant.code, 'demo');
        assert.equal(res.body.data.user.role, 'owner');
        // The demo tenant comes with demo data, so every endpoint has something to show.
        assert.match(output, /Loaded demo data/);
        const demo = client(server.url, res.body.data.token);
        for (const [path, atLeast] of [
          ['/api/crop/crop', 3],
          ['/api/croptype/croptype', 3],
          ['/api/productcategory/productcategory', 2],
          ['/api/crop/season', 2],
          ['/api/template/season', 1],
          ['/api/diary/production', 1],
          ['/api/diary/categories', 3],
          ['/api/diary/subcategories', 3],
          ['/api/farms', 1],
          ['/api/blocks', 2],
          ['/api/zones', 2],
          ['/api/parcels', 3],
        ] as const) {
          const list = await demo.get(path);
          assert.equal(list.status, 200, path);
          assert.ok(list.body.length >= atLeast, `${path} has demo records`);
        }
        // The demo crop's picture is served by the app itself (the farm app shows own-address pictures).
        const pictured = ((await demo.get('/api/crop/crop')).body as { image: string }[]).find(
          (c) => c.image,
        );
        assert.ok(pictured, 'a demo crop has a picture');
        assert.equal((await fetch(`${server.url}${pictured.image}`)).status, 200, pictured.image);
        const [task] = (await demo.get('/api/diary/production')).body;
        assert.equal(task.sub_cates.length, 2);
        assert.equal(task.season.name, 'Tomato spring 2026');
        // The secret key was generated into ./data/ with owner-only permissions.
        assert.equal(Buffer.from(readFileSync(join(dir, 'data', 'secret.key'), 'utf8'), 'base64').length, 32);
      } finally {
        assert.equal(await server.stop(), 0);
      }
      assert.match(server.output(), /shutting down/);
      // A second start finds the tenant and creates nothing.
      const again = await startFurrow(['serve'], { cwd: dir, timeoutMs: 60_000 });
      try {
        assert.doesNotMatch(again.output(), /Created tenant/);
      } finally {
        await again.stop();
      }
    });
  });
});

describe('a second furrow serve on one SQLite file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'furrow-second-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const env = { DATABASE_URL: `sqlite:${join(dir, 'furrow.db')}`, FURROW_SECRET_KEY: 'ab'.repeat(32) };

  it('refuses to start, points to PostgreSQL, and leaves the first one serving', async () => {
    const first = await startFurrow(['serve'], { env, timeoutMs: 60_000 });
    try {
      for (const role of ['all', 'worker', 'api']) {
        // Without the refusal it would start and serve: killed after a while, its code is null.
        const second = await runFurrow(['serve', '--role', role], { env, timeoutMs: 20_000 });
        assert.equal(second.code, 1, second.stderr);
        assert.match(second.stderr, /another "furrow serve" is already running on .*furrow\.db/);
        assert.match(second.stderr, /use PostgreSQL/);
      }
      assert.equal((await request(first.url, 'GET', '/readyz')).status, 200);
      // One-shot commands still work beside the running service.
      const created = await runFurrow(
        [
          'tenant',
          'create',
          '--code',
          'beside',
          '--name',
          'Beside',
          '--owner',
          'o',
          '--password',
          'long-enough-1',
        ],
        { env },
      );
      assert.equal(created.code, 0, created.stderr);
    } finally {
      // A killed process leaves no stale lock behind.
      await first.stop('SIGKILL');
    }
    const next = await startFurrow(['serve'], { env, timeoutMs: 60_000 });
    assert.equal(await next.stop(), 0);
  });
});

forEachDialect('furrow CLI on a database', { migrated: false }, (database) => {
  const env = () => ({ DATABASE_URL: database.url, FURROW_SECRET_KEY: 'ab'.repeat(32) });

  it('migrates, creates a tenant and users, and those users log in', async () => {
    const migrated = await runFurrow(['migrate'], { env: env() });
    assert.equal(migrated.code, 0, migrated.stderr);
    assert.match(migrated.stdout, /applied 0001_foundation/);
    const again = await runFurrow(['migrate'], { env: env() });
    assert.match(again.stdout, /Database is up to date/);

    // An empty database: the demo tenant is made on SQLite only, and FURROW_DEMO=off turns it off.
    const starts: Record<string, string>[] =
      database.dialect === 'postgres' ? [{}, { FURROW_DEMO: 'on' }] : [{ FURROW_DEMO: 'off' }];
    for (const extra of starts) {
      const empty = await startFurrow(['serve', '--role', 'api'], { env: { ...env(), ...extra } });
      try {
        assert.doesNotMatch(empty.output(), /Created tenant|password:/);
        const login = await request(empty.url, 'POST', '/api/auth/login', {
          json: { tenantcode: 'demo', username: 'owner', password: 'whatever-it-is' },
        });
        assert.equal(login.body.meta.status_code, 1, 'no demo tenant');
      } finally {
        assert.equal(await empty.stop(), 0);
      }
    }

    const tenant = await runFurrow(
      [
        'tenant',
        'create',
        '--code',
        'Green-Acres',
        '--name',
        'Green Acres',
        '--owner',
        'Lan',
        '--password',
        'correct-horse',
      ],
      { env: env() },
    );
    assert.equal(tenant.code, 0, tenant.stderr);
    assert.match(tenant.stdout, /Created tenant "green-acres"/);

    const duplicate = await runFurrow(
      [
        'tenant',
        'create',
        '--code',
        'green-acres',
        '--name',
        'Again',
        '--owner',
        'x',
        '--password',
        'correct-horse',
      ],
      { env: env() },
    );
    assert.equal(duplicate.code, 1);
    assert.match(duplicate.stderr, /code is already taken/);

    const badCode = await runFurrow(
      [
        'tenant',
        'create',
        '--code',
        'no spaces!',
        '--name',
        'X',
        '--owner',
        'x',
        '--password',
        'correct-horse',
      ],
      { env: env() },
    );
    assert.equal(badCode.code, 1);
    assert.match(badCode.stderr, /code has an invalid format/);

    const staff = await runFurrow(
      [
        'user',
        'create',
        '--tenant',
        'green-acres',
        '--username',
        'minh',
        '--password',
        'staff-password',
        '--firstname',
        'Minh',
      ],
      { env: env() },
    );
    assert.equal(staff.code, 0, staff.stderr);
    assert.match(staff.stdout, /Created staff "minh"/);

    // A new password from standard input (out of the shell's history), then from --password.
    const viaInput = await runFurrow(
      ['user', 'set-password', '--tenant', 'Green-Acres', '--username', 'MINH'],
      { env: env(), input: 'piped-password-1\nignored second line\n' },
    );
    assert.equal(viaInput.code, 0, viaInput.stderr);
    assert.match(viaInput.stdout, /Set a new password for "minh" in tenant "green-acres"/);
    const tooShort = await runFurrow(
      ['user', 'set-password', '--tenant', 'green-acres', '--username', 'minh', '--password', 'short'],
      { env: env() },
    );
    assert.equal(tooShort.code, 1);
    assert.match(tooShort.stderr, /password must be at least 8 characters/);
    const nobody = await runFurrow(
      [
        'user',
        'set-password',
        '--tenant',
        'green-acres',
        '--username',
        'nobody',
        '--password',
        'long-enough',
      ],
      { env: env() },
    );
    assert.equal(nobody.code, 2);
    assert.match(nobody.stderr, /No user "nobody" in tenant "green-acres"/);
    const empty = await runFurrow(['user', 'set-password', '--tenant', 'green-acres', '--username', 'minh'], {
      env: env(),
      input: '\n',
    });
    assert.equal(empty.code, 2);
    assert.match(empty.stderr, /No password given/);

    const shortPassword = await runFurrow(
      ['user', 'create', '--tenant', 'green-acres', '--username', 'x', '--password', 'short'],
      {
        env: env(),
      },
    );
    assert.equal(shortPassword.code, 1);
    assert.match(shortPassword.stderr, /password must be at least 8 characters/);

    const noTenant = await runFurrow(
      ['user', 'create', '--tenant', 'nope', '--username', 'x', '--password', 'long-enough'],
      {
        env: env(),
      },
    );
    assert.equal(noTenant.code, 2);
    assert.match(noTenant.stderr, /No tenant with code "nope"/);

    const demo = await runFurrow(
      [
        'tenant',
        'create',
        '--code',
        'demo-farm',
        '--name',
        'Demo',
        '--owner',
        'boss',
        '--password',
        'demo-password',
        '--demo',
      ],
      { env: env() },
    );
    assert.equal(demo.code, 0, demo.stderr);
    assert.match(demo.stdout, /Created tenant "demo-farm"/);
    assert.match(demo.stdout, /Loaded demo data/);

    const server = await startFurrow(['serve', '--role', 'api'], { env: env(), timeoutMs: 60_000 });
    try {
      const demoToken = await loginToken(server.url, 'demo-farm', {
        username: 'boss',
        password: 'demo-password',
      });
      const seasons = await client(server.url, demoToken).get('/api/crop/season');
      assert.equal(seasons.body.length, 2);
      // green-acres was created without --demo: no records
      const ownerToken = await loginToken(server.url, 'green-acres', {
        username: 'lan',
        password: 'correct-horse',
      });
      assert.deepEqual((await client(server.url, ownerToken).get('/api/crop/season')).body, []);
      const me = await client(server.url, ownerToken).get('/api/auth/me');
      assert.equal(me.body.data.user.role, 'owner');
      const refused = await request(server.url, 'POST', '/api/auth/login', {
        json: { tenantcode: 'green-acres', username: 'minh', password: 'staff-password' },
      });
      assert.equal(refused.body.meta.status_code, 1, 'the old password no longer works');
      const staffToken = await loginToken(server.url, 'green-acres', {
        username: 'minh',
        password: 'piped-password-1',
      });
      const staffMe = await client(server.url, staffToken).get('/api/auth/me');
      assert.equal(staffMe.body.data.user.role, 'staff');
      assert.equal(staffMe.body.data.user.firstname, 'Minh');
      const reset = await runFurrow(
        [
          'user',
          'set-password',
          '--tenant',
          'green-acres',
          '--username',
          'minh',
          '--password',
          'second-password',
        ],
        { env: env() },
      );
      assert.equal(reset.code, 0, reset.stderr);
      assert.equal((await client(server.url, staffToken).get('/api/auth/me')).status, 401, 'sessions ended');
      await loginToken(server.url, 'green-acres', { username: 'minh', password: 'second-password' });
    } finally {
      assert.equal(await server.stop(), 0);
    }
  });

  if (database.dialect === 'postgres') {
    it('runs several API processes on one PostgreSQL database; a token from one works on the other', async () => {
      const first = await startFurrow(['serve', '--role', 'api'], { env: env(), timeoutMs: 60_000 });
      const second = await startFurrow(['serve', '--role', 'api'], { env: env(), timeoutMs: 60_000 });
      try {
        const token = await loginToken(first.url, 'green-acres', {
          username: 'lan',
          password: 'correct-horse',
        });
        assert.equal((await client(second.url, token).get('/api/auth/me')).status, 200);
        await client(second.url, token).post('/api/auth/logout');
        assert.equal((await client(first.url, token).get('/api/auth/me')).status, 401);
      } finally {
        await Promise.all([first.stop(), second.stop()]);
      }
    });
  }
});

describe('furrow serve on PostgreSQL with pending migrations', () => {
  it('refuses to start and says to run furrow migrate', { skip: false }, async (t) => {
    const { TestDatabase } = await import('./support/databases.js');
    const database = new TestDatabase('postgres', { migrated: false });
    try {
      await database.create();
    } catch (err) {
      if (process.env.CI) throw err;
      t.skip('PostgreSQL not reachable');
      return;
    }
    try {
      const res = await runFurrow(['serve', '--role', 'api'], {
        env: { DATABASE_URL: database.url, PORT: '0' },
      });
      assert.equal(res.code, 1);
      assert.match(res.stderr, /pending migration\(s\); run "furrow migrate" first/);
    } finally {
      await database.drop();
    }
  });
});
