import { invalidRequest } from '../../contracts/index.js';

/**
 * Strict parsing of `application/x-www-form-urlencoded` text (request bodies and query strings).
 * Every value is a plain string: a repeated field, bracket syntax (`license_key[$ne]=x`), bad
 * percent-encoding or a NUL byte is refused, so nothing but a string ever reaches a query.
 */
export class Form {
  private constructor(private readonly values: ReadonlyMap<string, string>) {}

  static parse(text: string): Form {
    const fields = new Map<string, string>();
    if (text.length === 0) return new Form(fields);
    for (const pair of text.split('&')) {
      if (pair === '') continue;
      const eq = pair.indexOf('=');
      const name = decode(eq === -1 ? pair : pair.slice(0, eq));
      const value = eq === -1 ? '' : decode(pair.slice(eq + 1));
      if (/[[\]]/.test(name)) {
        throw invalidRequest(
          `Field ${JSON.stringify(name)} is not accepted: use plain field names.`,
        );
      }
      if (name.includes('\u0000') || value.includes('\u0000')) {
        throw invalidRequest('Fields must not contain NUL bytes.');
      }
      if (fields.has(name)) throw invalidRequest(`Field ${name} is sent more than once.`);
      fields.set(name, value);
    }
    return new Form(fields);
  }

  /** Every field, as sent (empty values included): the route's schema reads them. */
  fields(): Record<string, string> {
    return Object.fromEntries(this.values);
  }

  /** The query string of a request URL (`/path?a=1`), parsed with the same rules. */
  static fromUrl(url: string): Form {
    const question = url.indexOf('?');
    return Form.parse(question === -1 ? '' : url.slice(question + 1));
  }
}

/**
 * The query string of a request URL as sent, for a route that answers whatever it is sent (the
 * update check, spec 4.4): nothing is refused. Each field has every value sent under its name, in
 * order, null for a value that is not valid percent-encoding; a pair whose name is not valid
 * percent-encoding names no field.
 */
export function queryAsSent(url: string): Record<string, Array<string | null>> {
  const question = url.indexOf('?');
  if (question === -1) return {};
  const fields = new Map<string, Array<string | null>>();
  for (const pair of url.slice(question + 1).split('&')) {
    const eq = pair.indexOf('=');
    const name = decodeFormComponent(eq === -1 ? pair : pair.slice(0, eq));
    if (name === undefined) continue;
    const value = eq === -1 ? '' : (decodeFormComponent(pair.slice(eq + 1)) ?? null);
    fields.set(name, [...(fields.get(name) ?? []), value]);
  }
  return Object.fromEntries(fields);
}

/** One form-encoded name or value (`+` is a space), or undefined when it is not valid. */
export function decodeFormComponent(component: string): string | undefined {
  try {
    return decodeURIComponent(component.replace(/\+/g, ' '));
  } catch {
    return undefined;
  }
}

function decode(component: string): string {
  const value = decodeFormComponent(component);
  if (value === undefined) throw invalidRequest('The form data is not valid percent-encoding.');
  return value;
}
