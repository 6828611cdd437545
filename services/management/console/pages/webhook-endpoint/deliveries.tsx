import type { WebhookDelivery } from '../../../../../libs/contracts/index.js';
import { Empty, Field } from '../../../../../libs/web/ui/components.js';
import { useApi, type Answer } from '../../shared/api/admin-api.js';
import { Pager, ReloadButton } from '../../shared/components/controls.js';
import { WordSelect } from '../../shared/components/fields.js';
import { useAction, type Loaded } from '../../shared/hooks/hooks.js';
import { LoadView, Outcome } from '../../shared/components/notices.js';
import { DELIVERY_STATUS_WORDS, type DeliveryStatus } from '../../shared/words/webhook-words.js';
import { DeliveryTable } from './delivery-table.js';
import { keepingFocus } from '../../shared/lib/keeping-focus.js';

export type DeliveryPage = Answer<'listWebhookDeliveries'>;

export type DeliveryFilter = { status: DeliveryStatus | null; page: number };

/** The endpoint's deliveries, a page at a time, by status, each with a Retry. */
export function Deliveries({
  endpointId,
  deliveries,
  filter,
  onFilter,
}: {
  endpointId: number;
  deliveries: Loaded<DeliveryPage>;
  filter: DeliveryFilter;
  onFilter: (filter: DeliveryFilter) => void;
}) {
  const api = useApi();
  const action = useAction();
  const retry = (delivery: WebhookDelivery) =>
    action.run(async () => {
      const retried = await api.call('retryWebhookDelivery', {
        params: { id: endpointId, delivery_id: delivery.id },
      });
      deliveries.reload();
      return `Trying ${retried.id} again now; its attempt is listed below once made.`;
    });
  return (
    <section aria-labelledby="deliveries-heading" class="panel">
      <div class="title-row">
        <h2 id="deliveries-heading">Deliveries</h2>
        <ReloadButton loaded={deliveries} small />
      </div>
      <div class="row">
        <Field label="Status">
          <WordSelect
            name="status"
            none="Every status"
            words={DELIVERY_STATUS_WORDS}
            value={filter.status}
            onChange={(status) => onFilter({ status, page: 1 })}
          />
        </Field>
      </div>
      <Outcome action={action} />
      <LoadView loaded={deliveries} what="the deliveries">
        {(page) =>
          page.deliveries.length === 0 ? (
            <Empty>
              {filter.status === null
                ? 'Nothing has been sent to this endpoint yet.'
                : `No ${DELIVERY_STATUS_WORDS[filter.status].toLowerCase()} delivery.`}
            </Empty>
          ) : (
            <>
              <DeliveryTable
                deliveries={page.deliveries}
                busy={action.busy}
                onRetry={(delivery, button) => void keepingFocus(button, () => retry(delivery))}
              />
              <Pager
                page={page.page}
                perPage={page.per_page}
                total={page.total}
                noun="deliveries"
                onPage={(n) => onFilter({ ...filter, page: n })}
              />
            </>
          )
        }
      </LoadView>
    </section>
  );
}
