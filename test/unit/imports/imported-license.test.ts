import {
  ImportRecord,
  isRefused,
  type ImportedLicense,
} from '../../../services/management/imports/imported-license.js';

const license: ImportedLicense = {
  source: 'csv',
  source_id: 'KEY-1',
  line: 2,
  license_key: ' KEY-1 ',
  product: '7',
  plan: null,
  plan_hint: null,
  status: 'active',
  expires_at: null,
  activation_limit: 0,
  customer: null,
  parent_key: null,
  activations: [{ identifier: 'example.com', exempt: false, activated_at: '2024-01-02T03:04:05Z' }],
};

describe('the shape every import reader yields', () => {
  it('takes a license with the spec statuses and keeps its key byte for byte', () => {
    for (const status of ['active', 'expired', 'suspended', 'revoked', 'cancelled'] as const) {
      const parsed = ImportRecord.parse({ ...license, status });
      expect(parsed).toEqual({ ...license, status });
    }
  });

  it('refuses a status the spec does not have', () => {
    expect(ImportRecord.safeParse({ ...license, status: 'inactive' }).success).toBe(false);
  });

  it('refuses a negative limit and a date that is not ISO 8601', () => {
    expect(ImportRecord.safeParse({ ...license, activation_limit: -1 }).success).toBe(false);
    expect(ImportRecord.safeParse({ ...license, expires_at: '2024-13-45' }).success).toBe(false);
  });

  it('tells a refused record from a license', () => {
    const refused = ImportRecord.parse({
      refused: true,
      source: 'edd',
      line: 3,
      source_id: null,
      reason: 'license_key is missing',
    });
    expect(isRefused(refused)).toBe(true);
    expect(isRefused(license)).toBe(false);
  });
});
