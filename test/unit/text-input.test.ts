import type { z } from 'zod';
import {
  AddActivationRequest,
  AddFileRequest,
  CreateLicenseRequest,
  CreatePlanRequest,
  CreateProductRequest,
  CreateVersionRequest,
  CreateWebhookRequest,
  Customer,
  LogRefusalRequest,
  Metadata,
  NonEmptyShortText,
  ShortText,
  UpdateVersionRequest,
  UpdateWebhookRequest,
  WellFormedText,
  logValue,
} from '../../libs/contracts/index.js';
import { Form, parseWith } from '../../libs/http/index.js';
import {
  ActivateForm,
  DeactivateForm,
  ValidateForm,
} from '../../services/gateway/requests/inputs.js';

const invalid = expect.objectContaining({ code: 'INVALID_REQUEST' });
const LONE_HIGH = 'a\ud800b';
const LONE_LOW = 'a\udc00b';
const REVERSED = 'a\udc00\ud800b';

/** A request that passes, and a field of it where text is stored. */
const stored: Array<[string, z.ZodType, Record<string, unknown>, string]> = [
  ['product title', CreateProductRequest, { title: 'Plugin' }, 'title'],
  [
    'plan name',
    CreatePlanRequest,
    { name: 'Pro', activation_type: 'domain', activation_limit: 1 },
    'name',
  ],
  [
    'exempt identifier',
    CreatePlanRequest,
    { name: 'Pro', activation_type: 'domain', activation_limit: 1, exempt_identifiers: ['*.test'] },
    'exempt_identifiers',
  ],
  ['version', CreateVersionRequest, { product_id: 1, version: '1.0.0' }, 'version'],
  [
    'release notes',
    CreateVersionRequest,
    { product_id: 1, version: '1.0.0', release_notes: 'Fixes' },
    'release_notes',
  ],
  [
    'release notes, changed',
    UpdateVersionRequest,
    { id: 1, release_notes: 'Fixes' },
    'release_notes',
  ],
  [
    'activation identifier',
    AddActivationRequest,
    { license_key: 'K', identifier: 'pc-one' },
    'identifier',
  ],
  [
    'activation name',
    AddActivationRequest,
    { license_key: 'K', identifier: 'pc-one', name: 'Office' },
    'name',
  ],
  [
    'webhook description',
    CreateWebhookRequest,
    { url: 'https://hooks.example/in', events: ['*'], description: 'CRM' },
    'description',
  ],
  [
    'webhook description, changed',
    UpdateWebhookRequest,
    { id: 1, description: 'CRM' },
    'description',
  ],
  ['webhook url', CreateWebhookRequest, { url: 'https://hooks.example/in', events: ['*'] }, 'url'],
  [
    'file name',
    AddFileRequest,
    {
      version_id: 1,
      filename: 'p.zip',
      size: 1,
      sha256: 'a'.repeat(64),
      content_type: 'application/zip',
      object_key: 'k',
    },
    'filename',
  ],
  [
    'file content type',
    AddFileRequest,
    {
      version_id: 1,
      filename: 'p.zip',
      size: 1,
      sha256: 'a'.repeat(64),
      content_type: 'application/zip',
      object_key: 'k',
    },
    'content_type',
  ],
  [
    'file object key',
    AddFileRequest,
    {
      version_id: 1,
      filename: 'p.zip',
      size: 1,
      sha256: 'a'.repeat(64),
      content_type: 'application/zip',
      object_key: 'k',
    },
    'object_key',
  ],
  ['customer e-mail address', Customer, { email: 'jane@example.com' }, 'email'],
  ['customer name', Customer, { email: 'jane@example.com', name: 'Jane' }, 'name'],
  ['metadata value', Metadata, { order_id: 'A-1001' }, 'order_id'],
  [
    'download log key',
    LogRefusalRequest,
    {
      entry_id: null,
      product_id: 1,
      license_key: 'K',
      identifier: null,
      ip: '',
      reason: 'NOT_FOUND',
    },
    'license_key',
  ],
];

/** The field's value with an unpaired surrogate in it (inside the array for a list field). */
function withLoneSurrogate(value: unknown, text: string): unknown {
  if (Array.isArray(value)) return [`x${text}.test`];
  if (typeof value === 'string' && value.startsWith('https://'))
    return `https://hooks.example/${text}`;
  return text;
}

describe('text is stored as it was sent: unpaired surrogates are refused', () => {
  test('the shared text schemas refuse an unpaired surrogate, and keep a paired one', () => {
    for (const schema of [WellFormedText, ShortText, NonEmptyShortText]) {
      for (const bad of [LONE_HIGH, LONE_LOW, REVERSED, '\ud83d']) {
        const parsed = schema.safeParse(bad);
        expect(parsed.success).toBe(false);
        expect(parsed.error?.issues[0]?.message).toMatch(/well-formed Unicode/);
      }
      expect(schema.parse('grin \ud83d\ude00')).toBe('grin \ud83d\ude00');
    }
  });

  test.each(stored)(
    '%s: refused with an unpaired surrogate, accepted without',
    (_, schema, good, field) => {
      expect(() => parseWith(schema, good)).not.toThrow();
      for (const bad of [LONE_HIGH, LONE_LOW]) {
        const sent = { ...good, [field]: withLoneSurrogate(good[field], bad) };
        expect(() => parseWith(schema, sent)).toThrow(invalid);
      }
    },
  );

  test('public forms: a field holding an unpaired surrogate is refused by every license operation', () => {
    for (const form of [ActivateForm, ValidateForm, DeactivateForm]) {
      expect(() => parseWith(form, { license_key: 'K', identifier: LONE_HIGH }, 'form')).toThrow(
        invalid,
      );
      expect(() =>
        parseWith(form, { license_key: LONE_LOW, identifier: 'a.example' }, 'form'),
      ).toThrow(invalid);
    }
    expect(() =>
      parseWith(
        ActivateForm,
        { license_key: 'K', identifier: 'a.example', name: LONE_HIGH },
        'form',
      ),
    ).toThrow(invalid);
  });

  test('public forms: a percent-encoded surrogate is not UTF-8, and is refused, never replaced', () => {
    for (const encoded of ['%ED%A0%80', '%ED%B0%80', 'a%ED%A0%80b', '%FF', '%C3']) {
      expect(() => Form.parse(`license_key=K&identifier=${encoded}`)).toThrow(invalid);
      expect(() => Form.parse(`license_key=K&${encoded}=x`)).toThrow(invalid);
    }
    // A character outside the BMP, sent as its four UTF-8 bytes, is a surrogate pair: kept.
    expect(Form.parse('identifier=%F0%9F%98%80').fields()).toEqual({ identifier: '\ud83d\ude00' });
  });

  test('the download log keeps what a refused request carried, an unpaired surrogate as U+FFFD', () => {
    expect(logValue(LONE_HIGH)).toBe('a\ufffdb');
    expect(
      LogRefusalRequest.safeParse({
        entry_id: null,
        product_id: 1,
        license_key: logValue(LONE_HIGH),
        identifier: null,
        ip: '',
        reason: 'NOT_FOUND',
      }).success,
    ).toBe(true);
  });
});

describe('license keys an admin gives', () => {
  const base = { product_id: 1, plan_id: 1 };
  const given = (license_key: string) => CreateLicenseRequest.safeParse({ ...base, license_key });

  test('letters, digits, - and _ are accepted, up to 255 characters', () => {
    for (const key of [
      'a3f1c0de9b8e4f7a0c1d2e3f4a5b6c7d',
      'KEY',
      'K-123',
      'TAKEN-KEY-0001',
      'shop_2024-ABC',
      'k'.repeat(255),
    ]) {
      expect(given(key).success).toBe(true);
    }
  });

  test('any other character, or more than 255, is refused', () => {
    for (const key of [
      'a\nb',
      'a\tb',
      'has space',
      '.',
      '..',
      'a/b',
      'a%2Fb',
      'clé',
      'a\ud800b',
      'k'.repeat(256),
      '',
    ]) {
      const parsed = given(key);
      expect({ key, success: parsed.success }).toEqual({ key, success: false });
      expect(parsed.error?.issues[0]?.path).toEqual(['license_key']);
    }
  });

  test('a license created without a key still gets a generated one', () => {
    expect(CreateLicenseRequest.parse(base).license_key).toBeUndefined();
  });
});
