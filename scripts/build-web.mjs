// Builds the farm app (web/) into web/dist with Vite, writes precompressed copies (.br, .gz) of
// its files and reports the first load's compressed JS against the budget. `npm install` runs it (prepare),
// so a fresh clone serves the screen after `npm install && npm start`; `npm run build` too.
// Without the build tools (an install that left out devDependencies) it explains and skips.
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../web/', import.meta.url));
const require = createRequire(import.meta.url);

let vite;
try {
  require.resolve('vite/package.json');
  vite = await import('vite');
} catch {
  process.stderr.write(
    'build-web: Vite is not installed (devDependencies left out?); the farm app was not built.\n' +
      '           Run "npm install" (with devDependencies), then "npm run build:web".\n',
  );
  process.exit(process.argv.includes('--if-possible') ? 0 : 1);
}

await vite.build({ root, configFile: `${root}vite.config.ts`, logLevel: process.env.CI ? 'info' : 'warn' });
if (!existsSync(`${root}dist/index.html`)) {
  process.stderr.write('build-web: the build finished without web/dist/index.html\n');
  process.exit(1);
}
const { precompress, firstLoad, FIRST_LOAD_BUDGET_BYTES } = await import('./web-assets.mjs');
precompress(`${root}dist`);
const first = firstLoad(`${root}dist`);
const kb = (n) => `${(n / 1024).toFixed(1)} KB`;
process.stdout.write(
  `build-web: the farm app is built into web/dist; first load ${kb(first.gzip)} gzip (${kb(first.brotli)} brotli, ` +
    `${kb(first.raw)} raw) of JS, budget ${kb(FIRST_LOAD_BUDGET_BYTES)}\n`,
);
if (first.gzip > FIRST_LOAD_BUDGET_BYTES) {
  process.stderr.write('build-web: the first load is over budget: split more by route\n');
  process.exit(1);
}
