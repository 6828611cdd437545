import type { ImportLicense } from '../../libs/contracts/index.js';
import type { PlanTerms } from '../../services/license/licenses/license-store.js';
import {
  classifyImport,
  importedLicense,
  type StoredImport,
  type WantedImport,
} from '../../services/license/imports/import-rules.js';
import type { LicenseRecord } from '../../services/license/records.js';

const NOW = new Date('2026-06-01T12:00:00.000Z');

const plan = (terms: Partial<PlanTerms> = {}): PlanTerms => ({
  id: 7,
  activation_type: 'domain',
  activation_limit: 3,
  lease_seconds: null,
  exempt_identifiers: [],
  exempt_limit: 3,
  ...terms,
});

const entry = (fields: Partial<ImportLicense> = {}): ImportLicense => ({
  line: 2,
  imported_from: { source: 'edd', source_id: '41' },
  license_key: ' abc-Def 123 ',
  product_id: 10,
  plan_id: 7,
  status: 'active',
  expires_at: '2027-01-01T00:00:00.000Z',
  activation_limit: null,
  customer: { email: ' Buyer@Example.COM ', name: 'Ann' },
  activations: [],
  ...fields,
});

function wanted(fields: Partial<ImportLicense> = {}, terms: Partial<PlanTerms> = {}): WantedImport {
  const mapped = importedLicense(entry(fields), plan(terms), NOW);
  if (!mapped.ok) throw new Error(mapped.reason);
  return mapped.wanted;
}

/** A license stored as `wanted` would be written. */
function stored(from: WantedImport): StoredImport {
  const license: LicenseRecord = {
    ...from.license,
    customer: from.license.customer ?? null,
    metadata: {},
    store: null,
    activations_used: from.activations.filter((a) => !a.exempt).length,
    exempt_used: from.activations.filter((a) => a.exempt).length,
    activations_bytes: 0,
    last_check_at: null,
    last_check_ip: null,
    check_count: 0,
    created_at: NOW,
    pending_plan_id: null,
  };
  return {
    license,
    activations: from.activations.map(({ identifier_key, exempt }) => ({ identifier_key, exempt })),
  };
}

describe('an imported license as stored', () => {
  test('its key is kept byte for byte, spaces and letter case included', () => {
    expect(wanted().license.license_key).toBe(' abc-Def 123 ');
  });

  test('it takes its own limit, or the plan’s when it has none; 0 stays unlimited', () => {
    expect(wanted().license.activation_limit).toBe(3);
    expect(wanted({ activation_limit: 10 }).license.activation_limit).toBe(10);
    expect(wanted({ activation_limit: 0 }).license.activation_limit).toBe(0);
  });

  test('it keeps status, expiry, customer (address normalised) and where it came from', () => {
    const { license } = wanted({ status: 'suspended' });
    expect(license).toMatchObject({
      status: 'suspended',
      expires_at: new Date('2027-01-01T00:00:00.000Z'),
      customer: { email: 'buyer@example.com', name: 'Ann' },
      imported_from: { source: 'edd', source_id: '41' },
      plan_id: 7,
      activation_type: 'domain',
    });
    expect(wanted({ expires_at: null }).license.expires_at).toBeNull();
  });

  test('identifiers are normalised for the plan’s activation type, exempt ones kept exempt', () => {
    const activations = [
      { identifier: 'https://www.Example.com/shop', exempt: false, activated_at: null },
      { identifier: 'staging.example.com', exempt: true, activated_at: '2025-01-02T03:04:05.000Z' },
    ];
    expect(wanted({ activations }).activations).toEqual([
      expect.objectContaining({ identifier: 'example.com', exempt: false, activated_at: NOW }),
      expect.objectContaining({
        identifier: 'staging.example.com',
        exempt: true,
        activated_at: new Date('2025-01-02T03:04:05.000Z'),
      }),
    ]);
    const seat = wanted(
      { activations: [{ identifier: ' Ann@Example.com', exempt: false, activated_at: null }] },
      { activation_type: 'seat' },
    );
    expect(seat.activations.map((a) => a.identifier)).toEqual(['ann@example.com']);
  });

  test('two identifiers that normalise alike are one activation', () => {
    const activations = ['example.com', 'http://EXAMPLE.com/'].map((identifier) => ({
      identifier,
      exempt: false,
      activated_at: null,
    }));
    expect(wanted({ activations }).activations).toHaveLength(1);
  });

  test('an identifier that cannot be one refuses the license, naming it', () => {
    const activations = [{ identifier: 'https://', exempt: false, activated_at: null }];
    const mapped = importedLicense(entry({ activations }), plan(), NOW);
    expect(mapped).toEqual({ ok: false, reason: expect.stringContaining('"https://"') });
  });

  test('a customer address that cannot be one refuses the license', () => {
    const mapped = importedLicense(
      entry({ customer: { email: 'nobody', name: null } }),
      plan(),
      NOW,
    );
    expect(mapped).toEqual({ ok: false, reason: expect.stringContaining('customer.email') });
  });

  test('an activation on a plan with a lease gets its lease from the import', () => {
    const activations = [{ identifier: 'a.example', exempt: false, activated_at: null }];
    const [activation] = wanted({ activations }, { lease_seconds: 60 }).activations;
    expect(activation!.lease_expires_at).toEqual(new Date(NOW.getTime() + 60_000));
  });
});

describe('an imported key against the license stored under it', () => {
  const activations = [
    { identifier: 'a.example', exempt: false, activated_at: null },
    { identifier: 'b.example', exempt: true, activated_at: null },
  ];

  test('none stored: created', () => {
    expect(classifyImport(null, wanted())).toEqual({ outcome: 'create' });
  });

  test('stored with the same data, activations in any order: matched', () => {
    const before = stored(wanted({ activations }));
    const again = wanted({ activations: [...activations].reverse() });
    expect(classifyImport(before, again)).toEqual({ outcome: 'matched' });
  });

  test('stored with other data: a conflict naming each field that differs', () => {
    const before = stored(wanted({ activations }));
    const other = wanted({
      status: 'revoked',
      activation_limit: 9,
      activations: [{ ...activations[0]!, exempt: true }, activations[1]!],
    });
    expect(classifyImport(before, other)).toEqual({
      outcome: 'conflict',
      differences: ['status', 'activation_limit', 'activations'],
    });
  });

  test('a license made here under the same key is a conflict on its source', () => {
    const here = stored(wanted());
    delete here.license.imported_from;
    expect(classifyImport(here, wanted())).toEqual({
      outcome: 'conflict',
      differences: ['imported_from'],
    });
  });

  test('another expiry or customer is a conflict', () => {
    const before = stored(wanted());
    expect(classifyImport(before, wanted({ expires_at: null }))).toMatchObject({
      differences: ['expires_at'],
    });
    expect(classifyImport(before, wanted({ customer: null }))).toMatchObject({
      differences: ['customer'],
    });
  });
});
