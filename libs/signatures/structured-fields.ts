/**
 * The part of Structured Field Values for HTTP (RFC 8941) that message signatures use: the
 * dictionaries of `Signature-Input`, `Signature` and `Content-Digest`, whose members are inner
 * lists or items with parameters. Strict: a field that is not well formed is refused (null), as
 * section 4.2 asks ("fail parsing"), never read in part.
 */

/** An RFC 8941 bare item, without decimals (no field here carries one). */
export type BareItem = string | Token | number | boolean | Uint8Array;

/** A token (`sf-token`), told apart from a string, which serialises in quotes. */
export class Token {
  constructor(readonly value: string) {}
}

export type Parameters = ReadonlyArray<readonly [string, BareItem]>;

export interface Item {
  value: BareItem;
  params: Parameters;
}

export interface InnerList {
  items: Item[];
  params: Parameters;
}

export type Member = Item | InnerList;

export const isInnerList = (member: Member): member is InnerList => 'items' in member;

const KEY = /^[a-z*][a-z0-9_\-.*]*/;
const TOKEN = /^[A-Za-z*][!#$%&'*+\-.^_`|~0-9A-Za-z:/]*/;
const INTEGER = /^-?[0-9]{1,15}/;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

class Parser {
  private at = 0;

  constructor(private readonly text: string) {}

  done(): boolean {
    return this.at >= this.text.length;
  }

  private peek(): string {
    return this.text[this.at] ?? '';
  }

  private skip(chars: string): void {
    while (!this.done() && chars.includes(this.peek())) this.at++;
  }

  private take(pattern: RegExp): string | null {
    const match = pattern.exec(this.text.slice(this.at));
    if (!match) return null;
    this.at += match[0].length;
    return match[0];
  }

  dictionary(): Map<string, Member> | null {
    const members = new Map<string, Member>();
    this.skip(' ');
    while (!this.done()) {
      const key = this.take(KEY);
      if (key === null) return null;
      let member: Member | null;
      if (this.peek() === '=') {
        this.at++;
        member = this.peek() === '(' ? this.innerList() : this.item();
      } else {
        const params = this.parameters();
        member = params && { value: true, params };
      }
      if (member === null) return null;
      members.set(key, member);
      this.skip(' \t');
      if (this.done()) return members;
      if (this.peek() !== ',') return null;
      this.at++;
      this.skip(' \t');
      if (this.done()) return null;
    }
    return members;
  }

  private innerList(): InnerList | null {
    this.at++; // (
    const items: Item[] = [];
    for (;;) {
      this.skip(' ');
      if (this.peek() === ')') {
        this.at++;
        const params = this.parameters();
        return params && { items, params };
      }
      const item = this.item();
      if (item === null) return null;
      items.push(item);
      if (this.peek() !== ' ' && this.peek() !== ')') return null;
    }
  }

  private item(): Item | null {
    const value = this.bareItem();
    if (value === null) return null;
    const params = this.parameters();
    return params && { value, params };
  }

  private parameters(): Parameters | null {
    const params: Array<[string, BareItem]> = [];
    while (this.peek() === ';') {
      this.at++;
      this.skip(' ');
      const key = this.take(KEY);
      if (key === null) return null;
      let value: BareItem | null = true;
      if (this.peek() === '=') {
        this.at++;
        value = this.bareItem();
        if (value === null) return null;
      }
      const existing = params.findIndex(([name]) => name === key);
      if (existing !== -1) params.splice(existing, 1);
      params.push([key, value]);
    }
    return params;
  }

  private bareItem(): BareItem | null {
    const first = this.peek();
    if (first === '"') return this.string();
    if (first === ':') return this.bytes();
    if (first === '?') {
      const flag = this.take(/^\?[01]/);
      return flag === null ? null : flag === '?1';
    }
    if (first === '-' || (first >= '0' && first <= '9')) {
      const digits = this.take(INTEGER);
      if (digits === null || this.peek() === '.' || (this.peek() >= '0' && this.peek() <= '9')) {
        return null;
      }
      return Number(digits);
    }
    const token = this.take(TOKEN);
    return token === null ? null : new Token(token);
  }

  private string(): string | null {
    this.at++;
    let value = '';
    while (!this.done()) {
      const char = this.text[this.at++]!;
      if (char === '\\') {
        const escaped = this.text[this.at++];
        if (escaped !== '"' && escaped !== '\\') return null;
        value += escaped;
      } else if (char === '"') {
        return value;
      } else if (char < ' ' || char > '~') {
        return null;
      } else {
        value += char;
      }
    }
    return null;
  }

  private bytes(): Uint8Array | null {
    this.at++;
    const end = this.text.indexOf(':', this.at);
    if (end === -1) return null;
    const encoded = this.text.slice(this.at, end);
    this.at = end + 1;
    if (!BASE64.test(encoded) || encoded.length % 4 !== 0) return null;
    return fromBase64(encoded);
  }
}

/** A dictionary field's members by key, or null when the field is not a well-formed one. */
export function parseDictionary(field: string): Map<string, Member> | null {
  return new Parser(field.trim()).dictionary();
}

export function serializeBareItem(value: BareItem): string {
  if (typeof value === 'boolean') return value ? '?1' : '?0';
  if (typeof value === 'number') return String(value);
  if (value instanceof Token) return value.value;
  if (value instanceof Uint8Array) return `:${toBase64(value)}:`;
  return `"${value.replace(/[\\"]/g, (char) => `\\${char}`)}"`;
}

export function serializeParameters(params: Parameters): string {
  return params
    .map(([key, value]) => (value === true ? `;${key}` : `;${key}=${serializeBareItem(value)}`))
    .join('');
}

export function serializeItem(item: Item): string {
  return serializeBareItem(item.value) + serializeParameters(item.params);
}

export function serializeInnerList(list: InnerList): string {
  return `(${list.items.map(serializeItem).join(' ')})${serializeParameters(list.params)}`;
}

// Base64 without Buffer (browsers) or atob's string detour for binary.
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

export function toBase64(bytes: Uint8Array): string {
  let out = '';
  for (let i = 0; i < bytes.length; i += 3) {
    const n = (bytes[i]! << 16) | ((bytes[i + 1] ?? 0) << 8) | (bytes[i + 2] ?? 0);
    out += ALPHABET[(n >> 18) & 63]! + ALPHABET[(n >> 12) & 63]!;
    out += i + 1 < bytes.length ? ALPHABET[(n >> 6) & 63]! : '=';
    out += i + 2 < bytes.length ? ALPHABET[n & 63]! : '=';
  }
  return out;
}

/** Base64 (standard or URL-safe alphabet, padded or not) to bytes; null when not base64. */
export function fromBase64(text: string): Uint8Array | null {
  const standard = text.replace(/-/g, '+').replace(/_/g, '/').replace(/=+$/, '');
  if (!/^[A-Za-z0-9+/]*$/.test(standard) || standard.length % 4 === 1) return null;
  const out = new Uint8Array(Math.floor((standard.length * 3) / 4));
  let bits = 0;
  let buffer = 0;
  let at = 0;
  for (const char of standard) {
    buffer = (buffer << 6) | ALPHABET.indexOf(char);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[at++] = (buffer >> bits) & 0xff;
    }
  }
  return out;
}

export const toBase64Url = (bytes: Uint8Array) =>
  toBase64(bytes).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
