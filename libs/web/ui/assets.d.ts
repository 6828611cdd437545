/** Style sheets are bundled by esbuild beside the page's script (libs/web/web-app.ts). */
declare module '*.css';
