import { LicensingError, MAX_FIELD_LENGTH, characterLength } from '../../libs/contracts/index.js';

/**
 * Strict parsing of `application/x-www-form-urlencoded` text (request bodies and query strings).
 * Every value is a plain string: a repeated field, bracket syntax (`license_key[$ne]=x`), bad
 * percent-encoding or a NUL byte is refused, so nothing but a string ever reaches a query.
 */
export class Form {
  private constructor(private readonly fields: ReadonlyMap<string, string>) {}

  static parse(text: string): Form {
    const fields = new Map<string, string>();
    if (text.length === 0) return new Form(fields);
    for (const pair of text.split('&')) {
      if (pair === '') continue;
      const eq = pair.indexOf('=');
      const name = decode(eq === -1 ? pair : pair.slice(0, eq));
      const value = eq === -1 ? '' : decode(pair.slice(eq + 1));
      if (/[[\]]/.test(name)) {
        throw invalid(`Field ${JSON.stringify(name)} is not accepted: use plain field names.`);
      }
      if (name.includes('\u0000') || value.includes('\u0000')) {
        throw invalid('Fields must not contain NUL bytes.');
      }
      if (fields.has(name)) throw invalid(`Field ${name} is sent more than once.`);
      fields.set(name, value);
    }
    return new Form(fields);
  }

  /** The value as sent, empty included; undefined only when the field is absent. */
  sent(name: string): string | undefined {
    const value = this.fields.get(name);
    if (value !== undefined && characterLength(value) > MAX_FIELD_LENGTH) {
      throw invalid(`${name} must be at most ${MAX_FIELD_LENGTH} characters.`);
    }
    return value;
  }

  /** The value, or undefined when the field is absent or empty. */
  optional(name: string): string | undefined {
    const value = this.sent(name);
    return value === '' ? undefined : value;
  }

  required(name: string): string {
    const value = this.optional(name);
    if (value === undefined) throw invalid(`${name} is required.`);
    return value;
  }

  /** The query string of a request URL (`/path?a=1`), parsed with the same rules. */
  static fromUrl(url: string): Form {
    const question = url.indexOf('?');
    return Form.parse(question === -1 ? '' : url.slice(question + 1));
  }

  /** Spec 1: `dlid` is accepted in place of `license_key`. */
  optionalLicenseKey(): string | undefined {
    const key = this.optional('license_key');
    const dlid = this.optional('dlid');
    if (key !== undefined && dlid !== undefined && key !== dlid) {
      throw invalid('license_key and dlid name different keys; send one of them.');
    }
    return key ?? dlid;
  }

  licenseKey(): string {
    const value = this.optionalLicenseKey();
    if (value === undefined) throw invalid('license_key is required.');
    return value;
  }

  /** `product_id`: a positive integer when sent. */
  productId(): number | null {
    const value = this.optional('product_id');
    if (value === undefined) return null;
    return parseProductId(value);
  }
}

/** A positive integer written in plain decimal digits, or null. */
export function productIdOrNull(value: string): number | null {
  const id = /^[0-9]{1,15}$/.test(value) ? Number(value) : NaN;
  return Number.isSafeInteger(id) && id > 0 ? id : null;
}

export function parseProductId(value: string): number {
  const id = productIdOrNull(value);
  if (id === null) throw invalid('product_id must be a positive integer.');
  return id;
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
  if (value === undefined) throw invalid('The form data is not valid percent-encoding.');
  return value;
}

function invalid(message: string): LicensingError {
  return new LicensingError('INVALID_REQUEST', message);
}
