import { Form, parseProductId } from '../../services/gateway/form.js';

const invalid = expect.objectContaining({ code: 'INVALID_REQUEST' });

describe('form input of the public API (spec 1, 8)', () => {
  test('fields are decoded, including + and percent-encoding', () => {
    const form = Form.parse('license_key=K1&identifier=https%3A%2F%2Fexample.com%2Fa+b');
    expect(form.required('license_key')).toBe('K1');
    expect(form.required('identifier')).toBe('https://example.com/a b');
  });

  test('dlid is accepted in place of license_key', () => {
    expect(Form.parse('dlid=K2').licenseKey()).toBe('K2');
    expect(Form.parse('dlid=K2&license_key=K2').licenseKey()).toBe('K2');
  });

  test('license_key and dlid naming different keys are refused', () => {
    expect(() => Form.parse('dlid=K2&license_key=K3').licenseKey()).toThrow(invalid);
  });

  test('a missing or empty license_key is refused', () => {
    expect(() => Form.parse('identifier=x').licenseKey()).toThrow(invalid);
    expect(() => Form.parse('license_key=').licenseKey()).toThrow(invalid);
  });

  test('a repeated field is refused', () => {
    expect(() => Form.parse('license_key=a&license_key=b')).toThrow(invalid);
  });

  test('bracket syntax is refused, so no value can become an object', () => {
    expect(() => Form.parse('license_key[$ne]=x')).toThrow(invalid);
    expect(() => Form.parse('license_key%5B%24ne%5D=x')).toThrow(invalid);
    expect(() => Form.parse('identifier[]=a')).toThrow(invalid);
  });

  test('NUL bytes are refused', () => {
    expect(() => Form.parse('license_key=a%00b')).toThrow(invalid);
  });

  test('bad percent-encoding is refused', () => {
    expect(() => Form.parse('license_key=%E0%A4%A')).toThrow(invalid);
  });

  test('values are at most 255 characters (counted as characters, not bytes)', () => {
    expect(Form.parse(`identifier=${'é'.repeat(255)}`).required('identifier')).toHaveLength(255);
    expect(() => Form.parse(`identifier=${'a'.repeat(256)}`).required('identifier')).toThrow(
      invalid,
    );
    expect(() => Form.parse(`name=${'a'.repeat(256)}`).optional('name')).toThrow(invalid);
  });

  test('product_id is a positive integer', () => {
    expect(parseProductId('12')).toBe(12);
    for (const bad of ['abc', '1.5', '-3', '0', '1e3', ' 7', '99999999999999999999']) {
      expect(() => parseProductId(bad)).toThrow(invalid);
    }
  });

  test('an absent or empty product_id is not sent', () => {
    expect(Form.parse('license_key=a').productId()).toBeNull();
    expect(Form.parse('license_key=a&product_id=').productId()).toBeNull();
  });
});
