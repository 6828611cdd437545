#!/usr/bin/env node
// `npx licensing` in this repository: the root package.json's bin points here. It runs the
// command line from its TypeScript source through tsx (a root devDependency), so it needs no
// build and never runs an outdated dist/. Not published: the package's "files" lists dist only.
import { join } from 'node:path';
import { register } from 'tsx/esm/api';

// The client's own tsconfig, whatever directory npx was started in.
register({ tsconfig: join(import.meta.dirname, '..', 'tsconfig.json') });
await import('../src/cli.ts');
