import { buildWebApps } from './apps.js';

/** `npm run build` bundles the web apps beside the compiled code: `dist/web/<name>/`. */
await buildWebApps(process.argv[2] ?? 'dist');
