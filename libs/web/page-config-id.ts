/** The id of the element holding a page's config: written by web-app.ts, read by ui/page-config.ts. */
export const PAGE_CONFIG_ID = 'page-config';
