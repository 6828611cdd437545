import { useApi } from '../../shared/api/admin-api.js';
import { ReloadButton } from '../../shared/components/controls.js';
import { useLoad } from '../../shared/hooks/hooks.js';
import { CustomerAndMetadata } from './customer.js';
import { LoadView } from '../../shared/components/notices.js';
import { LicenseFacts } from './license-facts.js';
import { Activations } from './activations.js';
import { RejectedAttempts } from './rejected-attempts.js';
import { Settings } from './settings.js';
import { PlanChange } from './plan-change.js';
import { Renewal } from './renewal.js';
import { Usage } from './usage.js';
import { LicenseEntitlements } from './entitlements.js';

/** A license's page: its facts, activations and refused attempts, and the panels that change it. */
export function LicenseDetailPage({
  licenseKey,
  onBack,
}: {
  licenseKey: string;
  onBack: () => void;
}) {
  const api = useApi();
  const loaded = useLoad(
    () => api.call('getLicense', { params: { key: licenseKey } }),
    [api, licenseKey],
  );
  return (
    <section aria-labelledby="license-heading">
      <div class="title-row">
        <h1 id="license-heading">License</h1>
        <div class="row">
          <button type="button" class="secondary" onClick={onBack}>
            Back to licenses
          </button>
          <ReloadButton loaded={loaded} />
        </div>
      </div>
      <LoadView loaded={loaded} what="the license">
        {(license) => (
          <>
            <LicenseFacts license={license} />
            <Usage license={license} />
            <Activations license={license} onChange={loaded.replace} />
            <RejectedAttempts license={license} />
            <LicenseEntitlements license={license} onChange={loaded.replace} />
            <Settings license={license} onChange={loaded.replace} />
            <CustomerAndMetadata license={license} onChange={loaded.replace} />
            <PlanChange license={license} onChange={loaded.replace} />
            <Renewal license={license} onChange={loaded.replace} />
          </>
        )}
      </LoadView>
    </section>
  );
}
