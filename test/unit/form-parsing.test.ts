import { IdText } from '../../libs/contracts/index.js';
import { parseWith } from '../../libs/http/index.js';
import { Form } from '../../libs/http/index.js';
import { ActivateForm, ValidateForm } from '../../services/gateway/requests/inputs.js';

const invalid = expect.objectContaining({ code: 'INVALID_REQUEST' });

/** The form of a license operation, parsed as the gateway parses it. */
const activate = (text: string) => parseWith(ActivateForm, Form.parse(text).fields(), 'form');
const validate = (text: string) => parseWith(ValidateForm, Form.parse(text).fields(), 'form');

describe('form input of the public API (spec 1, 8)', () => {
  test('fields are decoded, including + and percent-encoding', () => {
    const form = Form.parse('license_key=K1&identifier=https%3A%2F%2Fexample.com%2Fa+b');
    expect(form.fields()).toEqual({ license_key: 'K1', identifier: 'https://example.com/a b' });
    expect(activate('license_key=K1&identifier=https%3A%2F%2Fexample.com%2Fa+b')).toMatchObject({
      license_key: 'K1',
      identifier: 'https://example.com/a b',
    });
  });

  test('dlid is accepted in place of license_key', () => {
    expect(validate('dlid=K2').license_key).toBe('K2');
    expect(validate('dlid=K2&license_key=K2').license_key).toBe('K2');
  });

  test('license_key and dlid naming different keys are refused', () => {
    expect(() => validate('dlid=K2&license_key=K3')).toThrow(invalid);
  });

  test('a missing or empty license_key is refused', () => {
    expect(() => validate('identifier=x')).toThrow(invalid);
    expect(() => validate('license_key=')).toThrow(invalid);
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
    expect(activate(`license_key=k&identifier=${'é'.repeat(255)}`).identifier).toHaveLength(255);
    expect(() => activate(`license_key=k&identifier=${'a'.repeat(256)}`)).toThrow(invalid);
    expect(() => activate(`license_key=k&identifier=x&name=${'a'.repeat(256)}`)).toThrow(invalid);
  });

  test('product_id is a positive integer (one parser for every id sent as text)', () => {
    expect(IdText.parse('12')).toBe(12);
    for (const bad of ['abc', '1.5', '-3', '0', '1e3', ' 7', '007', '99999999999999999999']) {
      expect(() => parseWith(IdText, bad)).toThrow(invalid);
      expect(() => validate(`license_key=k&product_id=${encodeURIComponent(bad)}`)).toThrow(
        invalid,
      );
    }
  });

  test('an absent or empty product_id is not sent', () => {
    expect(validate('license_key=a').product_id).toBeNull();
    expect(validate('license_key=a&product_id=').product_id).toBeNull();
  });

  test('fields an operation does not use are ignored, however long', () => {
    expect(validate(`license_key=a&edd_action=${'x'.repeat(300)}`).license_key).toBe('a');
  });
});
