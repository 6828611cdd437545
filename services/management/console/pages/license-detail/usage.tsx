import type { LicenseDetail } from '../../../../../libs/contracts/index.js';
import { Time } from '../../../../../libs/web/ui/time.js';
import { useApi } from '../../shared/api/admin-api.js';
import { useAction, useLoad } from '../../shared/hooks/hooks.js';
import { LoadView, Outcome } from '../../shared/components/notices.js';
import { useCan } from '../../shared/hooks/permissions.js';

/**
 * A license's usage counter (docs/api-decisions.md, "Usage counters"): the uses of the current
 * period of its plan, its cap and when it resets, and the reset, on a plan that counts usage.
 */
export function Usage({ license }: { license: LicenseDetail }) {
  const api = useApi();
  const can = useCan();
  const key = license.license_key;
  // The plan is read again with the license, so a changed cap shows on a reload.
  const loaded = useLoad(() => api.call('getLicenseUsage', { params: { key } }), [api, license]);
  const action = useAction();
  const reset = () =>
    action.run(async () => {
      loaded.replace(await api.call('resetLicenseUsage', { params: { key } }));
      return 'The usage counter starts again from 0.';
    });
  return (
    <LoadView loaded={loaded} what="the usage counter">
      {(usage) =>
        usage.max_uses === null ? null : (
          <section aria-labelledby="usage-heading" class="panel">
            <h2 id="usage-heading">Usage</h2>
            <p>
              {usage.uses.toLocaleString('en')} of {usage.max_uses.toLocaleString('en')} uses
              {usage.resets_at === null ? (
                ' (never resets)'
              ) : (
                <>
                  {' '}
                  this period; resets <Time value={usage.resets_at} />
                </>
              )}
            </p>
            {can('resetLicenseUsage') && (
              <button type="button" class="secondary" disabled={action.busy} onClick={reset}>
                Reset usage
              </button>
            )}
            <Outcome action={action} />
          </section>
        )
      }
    </LoadView>
  );
}
