import { defineConfig } from 'tsup';

export default defineConfig([
  {
    // The SDK: ESM and CommonJS with declarations, for Node 20+ and browsers (no Node imports).
    // libs/signatures is bundled in: the package has no runtime dependency.
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
    target: 'node20',
    sourcemap: true,
    clean: false,
    outDir: 'dist',
  },
]);
