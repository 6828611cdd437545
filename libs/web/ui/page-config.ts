/**
 * The settings a page was served with (libs/web/web-app.ts `PageSettings`): JSON in a data block
 * of the page, read once as the app starts.
 */
import { PAGE_CONFIG_ID } from '../page-config-id.js';

/** The page's config as an object; an empty one when the page has none or it cannot be read. */
export function readPageConfig(): Record<string, unknown> {
  const text = document.getElementById(PAGE_CONFIG_ID)?.textContent ?? '';
  if (text === '') return {};
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : {};
  } catch {
    return {};
  }
}

/** A text setting of the config, or null when it is absent, empty or not text. */
export function textSetting(config: Record<string, unknown>, name: string): string | null {
  const value = config[name];
  return typeof value === 'string' && value !== '' ? value : null;
}
