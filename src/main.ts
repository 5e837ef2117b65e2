// The furrow CLI: parses the command and hands it to its file in cli/.
import { migrate } from './cli/migrate.js';
import { type Command, subcommand } from './cli/options.js';
import { reportFailure } from './cli/report.js';
import { serve } from './cli/serve.js';
import { tenantCreate } from './cli/tenant.js';
import { userCreate, userSetPassword } from './cli/user.js';
import { version } from './cli/version.js';

const USAGE = `furrow — farm management service

Usage:
  furrow serve [--role all|api|worker] [--migrate]
  furrow migrate
  furrow tenant create --code CODE --name NAME --owner USERNAME --password PASSWORD [--demo]
  furrow user create --tenant CODE --username USERNAME --password PASSWORD [--role owner|staff]
  furrow user set-password --tenant CODE --username USERNAME [--password PASSWORD]
  furrow --version

Run "furrow COMMAND --help" for a command's options. Configuration comes from environment
variables (PORT, HOST, DATABASE_URL, FURROW_SECRET_KEY, TOKEN_TTL_SECONDS, ...); see README.md.
`;

export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  const commands: Record<string, Command> = {
    serve,
    migrate,
    tenant: (args) => subcommand('tenant', { create: tenantCreate }, args),
    user: (args) => subcommand('user', { create: userCreate, 'set-password': userSetPassword }, args),
  };
  if (command === '--version' || command === '-v' || command === 'version') {
    process.stdout.write(`furrow ${version()}\n`);
    return 0;
  }
  if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
    process.stdout.write(USAGE);
    return command === undefined ? 2 : 0;
  }
  const run = commands[command];
  if (!run) {
    process.stderr.write(`Unknown command "${command}".\n\n${USAGE}`);
    return 2;
  }
  try {
    return await run(rest);
  } catch (err) {
    return await reportFailure(err);
  }
}
