#!/usr/bin/env node
import { main } from './cli/cli-main.js';

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`licensing: ${error instanceof Error ? error.stack : String(error)}\n`);
    process.exitCode = 1;
  },
);
