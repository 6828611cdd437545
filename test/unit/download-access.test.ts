import {
  decideDownloadAccess,
  errorStatus,
  type AccessRequest,
  type DownloadAccess,
  type LicenseCoverage,
  type Refused,
} from '../../libs/contracts/index.js';
import { fileToDownload } from '../../services/download/access.js';

/** A covering, active license of plan 7, with the identifier (when sent) activated. */
const coverage = (overrides: Partial<LicenseCoverage> = {}): LicenseCoverage => ({
  identifier: null,
  found: true,
  covers: true,
  status: 'active',
  plan_id: 7,
  expires_at: null,
  auto_renew: false,
  next_payment_at: null,
  in_grace: false,
  grace_ends_at: null,
  updates_until: null,
  identifier_activated: null,
  entitlements: [],
  ...overrides,
});

function decide(
  access: DownloadAccess,
  request: Partial<Omit<AccessRequest, 'access'>> = {},
):
  | { ok: true; planId: number | null; updatesUntil: string | null }
  | { code: string; status: number } {
  const decision = decideDownloadAccess({
    access,
    keySent: request.keySent ?? request.coverage !== null,
    identifierSent: request.identifierSent ?? false,
    coverage: request.coverage === undefined ? coverage() : request.coverage,
  });
  return answer(decision);
}

/** A refusal is a value: what the client gets is its code, with the HTTP status it maps to. */
function answer<T extends { ok: true }>(
  decision: T | Refused,
): T | { code: string; status: number } {
  return decision.ok
    ? decision
    : { code: decision.refusal.code, status: errorStatus[decision.refusal.code] };
}

const refused = (code: string, status: number) => ({ code, status });

describe('spec 4.5: Account only', () => {
  test('refuses everything, even a valid key with an activated identifier', () => {
    expect(decide('account')).toEqual(refused('DOWNLOAD_NOT_AVAILABLE', 403));
    expect(
      decide('account', {
        identifierSent: true,
        coverage: coverage({ identifier_activated: true }),
      }),
    ).toEqual(refused('DOWNLOAD_NOT_AVAILABLE', 403));
    expect(decide('account', { keySent: false, coverage: null })).toEqual(
      refused('DOWNLOAD_NOT_AVAILABLE', 403),
    );
  });
});

describe('spec 2.6: public downloads', () => {
  test('need no key', () => {
    expect(decide('public', { keySent: false, coverage: null })).toEqual({
      ok: true,
      planId: null,
      updatesUntil: null,
    });
  });

  test('a covering key only scopes the file to its plan; any other key is as good as none', () => {
    expect(decide('public')).toEqual({ ok: true, planId: 7, updatesUntil: null });
    expect(decide('public', { coverage: coverage({ status: 'expired' }) })).toEqual({
      ok: true,
      planId: 7,
      updatesUntil: null,
    });
    expect(decide('public', { coverage: coverage({ found: false, covers: false }) })).toEqual({
      ok: true,
      planId: null,
      updatesUntil: null,
    });
    expect(decide('public', { coverage: coverage({ covers: false, plan_id: null }) })).toEqual({
      ok: true,
      planId: null,
      updatesUntil: null,
    });
  });

  test('an identifier is not checked', () => {
    const request = { identifierSent: true, coverage: coverage({ identifier_activated: false }) };
    expect(decide('public', request)).toEqual({ ok: true, planId: 7, updatesUntil: null });
  });
});

describe.each<DownloadAccess>(['license_key', 'activated_identifier'])(
  'spec 4.5: %s downloads',
  (access) => {
    const withIdentifier = (activated: boolean) => ({
      identifierSent: true,
      coverage: coverage({ identifier_activated: activated }),
    });

    test('no key: LICENSE_INVALID (403)', () => {
      expect(decide(access, { keySent: false, coverage: null })).toEqual(
        refused('LICENSE_INVALID', 403),
      );
    });

    test('unknown key: LICENSE_INVALID', () => {
      const unknown = coverage({ found: false, covers: false, status: null, plan_id: null });
      expect(decide(access, { coverage: unknown })).toEqual(refused('LICENSE_INVALID', 403));
    });

    test.each(['suspended', 'revoked', 'cancelled'] as const)(
      'a %s license: LICENSE_INVALID, before PRODUCT_MISMATCH',
      (status) => {
        expect(decide(access, { coverage: coverage({ status }) })).toEqual(
          refused('LICENSE_INVALID', 403),
        );
        expect(decide(access, { coverage: coverage({ status, covers: false }) })).toEqual(
          refused('LICENSE_INVALID', 403),
        );
      },
    );

    test('a key for another product: PRODUCT_MISMATCH, before LICENSE_EXPIRED', () => {
      expect(decide(access, { coverage: coverage({ covers: false }) })).toEqual(
        refused('PRODUCT_MISMATCH', 403),
      );
      expect(decide(access, { coverage: coverage({ covers: false, status: 'expired' }) })).toEqual(
        refused('PRODUCT_MISMATCH', 403),
      );
    });

    test('an expired license: LICENSE_EXPIRED (403), before any identifier rule', () => {
      expect(decide(access, { coverage: coverage({ status: 'expired' }) })).toEqual(
        refused('LICENSE_EXPIRED', 403),
      );
      expect(
        decide(access, {
          identifierSent: true,
          coverage: coverage({ status: 'expired', identifier_activated: false }),
        }),
      ).toEqual(refused('LICENSE_EXPIRED', 403));
    });

    test('an identifier that is sent must be activated: ACTIVATION_NOT_FOUND (404)', () => {
      expect(decide(access, withIdentifier(false))).toEqual(refused('ACTIVATION_NOT_FOUND', 404));
    });

    test('an activated identifier: served, with the plan of the license', () => {
      expect(decide(access, withIdentifier(true))).toEqual({
        ok: true,
        planId: 7,
        updatesUntil: null,
      });
    });

    test('a bundle key (covering, no plan of its own here): served with all-plans files', () => {
      const bundle = coverage({ plan_id: null, identifier_activated: true });
      expect(decide(access, { identifierSent: true, coverage: bundle })).toEqual({
        ok: true,
        planId: null,
        updatesUntil: null,
      });
    });
  },
);

describe('the identifier rule that differs', () => {
  test('License key: no identifier is fine', () => {
    expect(decide('license_key')).toEqual({ ok: true, planId: 7, updatesUntil: null });
  });

  test('License key + activated identifier: no identifier is ACTIVATION_REQUIRED (403)', () => {
    expect(decide('activated_identifier')).toEqual(refused('ACTIVATION_REQUIRED', 403));
  });
});

describe('spec 4.5: a product with nothing to download', () => {
  test('no file for the caller: NOT_FOUND (404)', () => {
    expect(answer(fileToDownload(null))).toEqual(refused('NOT_FOUND', 404));
    const selection = { file: { filename: 'plugin.zip' } };
    expect(fileToDownload(selection)).toEqual({ ok: true, selection });
  });

  test('a file a feed listed is served only under its own name', () => {
    const selection = { file: { filename: 'plugin.zip' } };
    expect(fileToDownload(selection, { filename: 'plugin.zip' })).toEqual({ ok: true, selection });
    expect(answer(fileToDownload(selection, { filename: 'other.zip' }))).toEqual(
      refused('NOT_FOUND', 404),
    );
    expect(answer(fileToDownload(null, { filename: 'plugin.zip' }))).toEqual(
      refused('NOT_FOUND', 404),
    );
  });
});
