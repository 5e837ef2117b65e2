#!/usr/bin/env node
// The furrow CLI. TypeScript sources run through tsx's loader, so a fresh clone needs no build step.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/main.ts');
process.exitCode = await main(process.argv.slice(2));
