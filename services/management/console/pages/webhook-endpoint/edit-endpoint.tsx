import { useState } from 'preact/hooks';
import type { WebhookEndpoint } from '../../../../../libs/contracts/index.js';
import { useApi } from '../../shared/api/admin-api.js';
import { EndpointFields } from '../../shared/components/webhook-parts.js';
import {
  endpointBody,
  endpointComplete,
  endpointDraftOf,
  type EndpointDraft,
} from '../../shared/words/webhook-words.js';
import { EditPanel } from '../../shared/components/edit-panel.js';

/** The URL, events and description changed (PATCH), in the edit panel the plans' has too. */
export function EditEndpoint({
  endpoint,
  onSaved,
  onCancel,
}: {
  endpoint: WebhookEndpoint;
  onSaved: (endpoint: WebhookEndpoint) => void;
  onCancel: () => void;
}) {
  const api = useApi();
  const [draft, setDraft] = useState<EndpointDraft>(() => endpointDraftOf(endpoint));
  const save = async () => {
    const saved = await api.call('updateWebhook', {
      params: { id: endpoint.id },
      body: endpointBody(draft),
    });
    onSaved(saved);
  };
  return (
    <EditPanel
      label="Edit webhook endpoint"
      first="url"
      ready={endpointComplete(draft)}
      save={save}
      onCancel={onCancel}
    >
      <EndpointFields name="edit-webhook" draft={draft} onDraft={setDraft} />
    </EditPanel>
  );
}
