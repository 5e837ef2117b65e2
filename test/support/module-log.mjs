// A preload (`node --import`) for a furrow process under test: the URL of every module it loads
// through `import` is appended to the file named by FURROW_TEST_MODULE_LOG, one a line.
import { register } from 'node:module';

register('./module-log-hooks.mjs', import.meta.url, { data: process.env.FURROW_TEST_MODULE_LOG });
