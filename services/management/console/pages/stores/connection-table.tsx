import { Empty, Table } from '../../../../../libs/web/ui/components.js';
import { Time } from '../../../../../libs/web/ui/time.js';
import { MODE_WORDS, PROVIDER_WORDS } from '../../shared/words/store-words.js';
import type { StoreConnection } from './new-connection-form.js';

/** The connections, each with the URL its store sends to and an Open button. */
export function ConnectionTable({
  connections,
  onOpen,
}: {
  connections: readonly StoreConnection[];
  onOpen: (id: number) => void;
}) {
  if (connections.length === 0) return <Empty>No store connected yet.</Empty>;
  return (
    <Table columns={['Name', 'Store', 'Mode', 'Events URL', 'Added']} actions>
      {connections.map((connection) => (
        <tr key={connection.id} data-connection={connection.id}>
          <td>{connection.name}</td>
          <td>{PROVIDER_WORDS[connection.provider]}</td>
          <td>{MODE_WORDS[connection.mode]}</td>
          <td class="mono long">{connection.events_url}</td>
          <td>
            <Time value={connection.created_at} />
          </td>
          <td class="actions">
            <button
              type="button"
              class="secondary small"
              aria-label={`Open store connection ${connection.name}`}
              onClick={() => onOpen(connection.id)}
            >
              Open
            </button>
          </td>
        </tr>
      ))}
    </Table>
  );
}
