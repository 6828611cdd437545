import { defineConfig } from 'tsup';

export default defineConfig([
  {
    // The SDK: ESM and CommonJS with declarations, for Node 18+ and browsers (no Node imports).
    entry: { index: 'src/index.ts' },
    format: ['esm', 'cjs'],
    platform: 'neutral',
    target: 'es2020',
    dts: true,
    sourcemap: true,
    clean: false,
    outDir: 'dist',
  },
  {
    // The `licensing` command line (Node only).
    entry: { cli: 'src/cli.ts' },
    format: ['esm'],
    platform: 'node',
    target: 'node18',
    sourcemap: true,
    clean: false,
    outDir: 'dist',
  },
]);
