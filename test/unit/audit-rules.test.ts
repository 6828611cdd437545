import { csvField, csvLine } from '../../libs/http/index.js';
import { createLogger, keyFingerprint } from '../../libs/logging/index.js';
import { BOOTSTRAP_OWNER } from '../../services/management/admins/admin-tokens.js';
import { AuditTrail } from '../../services/management/audit/audit.js';
import {
  changedFields,
  leftAsItWas,
  redact,
  targetOf,
} from '../../services/management/audit/audit-rules.js';
import { memoryManagementStores } from '../support/management-memory-stores.js';

describe('what the audit log keeps of a change', () => {
  test('secrets are never kept: webhook secrets, tokens, hashes, keys, payloads', () => {
    expect(
      redact({
        id: 3,
        secret: 'whsec_x',
        previous_secret: 'whsec_y',
        token: 'adm_0123456789abcdef_s',
        token_id: '0123456789abcdef',
        hash: 'scrypt$…',
        signing_key: 'PEM',
        payload: '{"license_key":"K"}',
        nested: [{ secret: 's', kept: true }],
      }),
    ).toEqual({ id: 3, token_id: '0123456789abcdef', nested: [{ kept: true }] });
  });

  test("a store connection's signing secret and API key are never kept; whether one is set is", () => {
    expect(
      redact({ id: 4, signing_secret: 'whsec_x', api_key: 'sk_live_x', api_key_set: true }),
    ).toEqual({ id: 4, api_key_set: true });
  });

  test('a license key is kept only as its fingerprint', () => {
    const key = 'ABCD-1234-EFGH-5678';
    expect(redact({ license_key: key, license_keys: [key] })).toEqual({
      license_key: keyFingerprint(key),
      license_keys: [keyFingerprint(key)],
    });
    expect(JSON.stringify(redact({ license_key: key }))).not.toContain(key);
  });

  test('a record changed keeps only the fields that differ, before and after', () => {
    const before = { id: 1, status: 'active', limit: 3, activations: [{ identifier: 'a.test' }] };
    const after = { id: 1, status: 'suspended', limit: 3, activations: [{ identifier: 'a.test' }] };
    expect(changedFields(before, after)).toEqual({
      before: { status: 'active' },
      after: { status: 'suspended' },
    });
  });

  test('a field added or gone is kept on the side that has it', () => {
    expect(changedFields({ a: 1 }, { b: 2 })).toEqual({ before: { a: 1 }, after: { b: 2 } });
  });

  test('a record created keeps all of it after; one removed, all of it before', () => {
    expect(changedFields(null, { id: 1, name: 'x', secret: 's' })).toEqual({
      before: null,
      after: { id: 1, name: 'x' },
    });
    expect(changedFields({ id: 1 }, null)).toEqual({ before: { id: 1 }, after: null });
  });

  test('the target is the kind and id of the record the path names', () => {
    const base = '/admin/v1';
    expect(targetOf('/admin/v1/products/12', base)).toBe('product:12');
    expect(targetOf('/admin/v1/products/12/versions', base)).toBe('product:12');
    expect(targetOf('/admin/v1/plans/3?x=1', base)).toBe('plan:3');
    expect(targetOf('/admin/v1/jobs/license-expiry', base)).toBe('job:license-expiry');
    expect(targetOf('/admin/v1/webhooks/2/deliveries/msg_1/retry', base)).toBe('webhook:2');
    expect(targetOf('/admin/v1/admins/5/tokens/0123456789abcdef', base)).toBe('admin:5');
  });

  test('a path whose second segment is a word of the route, not an id, names the kind alone', () => {
    const base = '/admin/v1';
    expect(targetOf('/admin/v1/licenses/import', base, '/admin/v1/licenses/import')).toBe(
      'license',
    );
    expect(targetOf('/admin/v1/plans/3', base, '/admin/v1/plans/:id')).toBe('plan:3');
  });

  test('a license target is its key fingerprint, whatever the path encodes', () => {
    const key = 'key with/slash';
    const path = `/admin/v1/licenses/${encodeURIComponent(key)}/activations/a.test`;
    expect(targetOf(path, '/admin/v1')).toBe(`license:${keyFingerprint(key)}`);
  });
});

describe('a change of many records (a bulk change)', () => {
  test.each([
    { what: 'the same before and after', before: { s: 'a' }, after: { s: 'a' }, left: true },
    { what: 'a field changed', before: { s: 'a' }, after: { s: 'b' }, left: false },
    { what: 'a field added', before: {}, after: { s: 'a' }, left: false },
    { what: 'a record created', before: null, after: { s: 'a' }, left: false },
    { what: 'a record removed', before: { s: 'a' }, after: null, left: false },
  ])('$what: left as it was, $left (no entry when true)', ({ before, after, left }) => {
    expect(leftAsItWas(changedFields(before, after))).toBe(left);
  });

  const license = (key: string, status: string, expires_at: string | null = null) => ({
    license_key: key,
    status,
    expires_at,
    activations: [{ identifier: 'a.test' }],
  });

  async function recordEach(changes: Array<{ target: string; before: unknown; after: unknown }>) {
    const stores = memoryManagementStores();
    const trail = new AuditTrail(stores.audit, createLogger('test', 'silent'));
    await trail.recordEach(
      BOOTSTRAP_OWNER,
      changes.map((change) => ({ action: 'changeLicenses', ...change })),
    );
    const { entries } = await stores.audit.page({}, 1, 100);
    return entries.sort((a, b) => a.target.localeCompare(b.target));
  }

  test('an entry for each record changed, with the fields that moved before and after', async () => {
    const entries = await recordEach([
      { target: 'license:A', before: license('A', 'active'), after: license('A', 'revoked') },
      {
        target: 'license:B',
        before: license('B', 'suspended', '2030-01-01T00:00:00.000Z'),
        after: license('B', 'revoked', '2030-01-01T00:00:00.000Z'),
      },
    ]);
    expect(entries).toEqual([
      expect.objectContaining({
        action: 'changeLicenses',
        target: 'license:A',
        before: { status: 'active' },
        after: { status: 'revoked' },
      }),
      expect.objectContaining({
        target: 'license:B',
        before: { status: 'suspended' },
        after: { status: 'revoked' },
      }),
    ]);
  });

  test('a record left as it was has no entry; a change that changed none writes nothing', async () => {
    const partly = await recordEach([
      { target: 'license:A', before: license('A', 'active'), after: license('A', 'revoked') },
      { target: 'license:B', before: license('B', 'revoked'), after: license('B', 'revoked') },
    ]);
    expect(partly.map((entry) => entry.target)).toEqual(['license:A']);
    const none = await recordEach([
      { target: 'license:B', before: license('B', 'revoked'), after: license('B', 'revoked') },
    ]);
    expect(none).toEqual([]);
  });
});

describe('CSV cells', () => {
  test.each(['=1+1', '+1', '-1', '@SUM(A1)', '\tx', '\rx'])(
    'a cell starting like a formula (%j) is made text with a leading quote',
    (value) => {
      expect(csvField(value).replace(/^"/, '')).toMatch(/^'/);
    },
  );

  test('commas, quotes and line breaks are quoted; quotes doubled', () => {
    expect(csvField('a,b')).toBe('"a,b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField('two\nlines')).toBe('"two\nlines"');
    expect(csvField('=a,b')).toBe(`"'=a,b"`);
  });

  test('numbers, booleans and null are written plainly; a line ends with CRLF', () => {
    expect(csvLine([-1, true, null, 'x'])).toBe('-1,true,,x\r\n');
  });
});
