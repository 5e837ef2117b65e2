// A preload (`node --import`) for a furrow process under test: the URL or path of every module it
// loads, by `import` or by `require`, is appended to the file named by FURROW_TEST_MODULE_LOG.
import { appendFileSync } from 'node:fs';
import Module, { register } from 'node:module';

const file = process.env.FURROW_TEST_MODULE_LOG;
register('./module-log-hooks.mjs', import.meta.url, { data: file });

// Modules that CommonJS code requires do not pass the loader hooks: each is noted as it compiles.
const compile = Module.prototype._compile;
Module.prototype._compile = function (content, filename) {
  if (file) appendFileSync(file, `${filename}\n`);
  return compile.call(this, content, filename);
};
