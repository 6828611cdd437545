/** The audit log: who changed what through the API (and so the console), and when. */
import { useState } from 'preact/hooks';
import type { AuditEntry, AuditSourceKind } from '../../../../../libs/contracts/index.js';
import { auditSourceKinds } from '../../../../../libs/contracts/bounds.js';
import { Empty, Field, Table } from '../../../../../libs/web/ui/components.js';
import { Time } from '../../../../../libs/web/ui/time.js';
import { useApi, type Query } from '../../shared/api/admin-api.js';
import {
  SOURCE_WORDS,
  actionWords,
  adminWords,
  madeByWords,
  valueWords,
} from '../../shared/words/admin-words.js';
import { Pager, ReloadButton } from '../../shared/components/controls.js';
import { Input } from '../../shared/components/fields.js';
import { useAction, useLoad } from '../../shared/hooks/hooks.js';
import { LoadView, Outcome } from '../../shared/components/notices.js';
import { useCan } from '../../shared/hooks/permissions.js';
import { saveFile } from '../../shared/components/lists.js';

interface Filter {
  source: AuditSourceKind | '';
  admin: string;
  action: string;
  target: string;
  from: string;
  to: string;
}

const NO_FILTER: Filter = { source: '', admin: '', action: '', target: '', from: '', to: '' };
const PER_PAGE = 50;

const queryOf = (filter: Filter): Query<'exportAuditLog'> => ({
  source: filter.source,
  admin: filter.admin,
  action: filter.action.trim(),
  target: filter.target.trim(),
  from: filter.from,
  to: filter.to,
});

/** The fields of a change: each with its value before and after, or all of a record made or gone. */
export function Changes({ entry }: { entry: Pick<AuditEntry, 'before' | 'after'> }) {
  const { before, after } = entry;
  const names = [...new Set([...Object.keys(before ?? {}), ...Object.keys(after ?? {})])];
  if (names.length === 0) return <span class="muted">no fields</span>;
  const side = before === null ? 'made' : after === null ? 'gone' : 'changed';
  return (
    <dl class={`changes ${side}`}>
      {names.map((name) => (
        <div key={name}>
          <dt>{name}</dt>
          <dd>
            {side === 'changed' ? (
              <>
                <del>{valueWords(before?.[name])}</del>
                <span aria-hidden="true"> → </span>
                <span class="visually-hidden"> became </span>
                <ins>{valueWords(after?.[name])}</ins>
              </>
            ) : (
              <span class="mono">{valueWords((before ?? after)?.[name])}</span>
            )}
          </dd>
        </div>
      ))}
    </dl>
  );
}

function Entries({ entries }: { entries: readonly AuditEntry[] }) {
  return (
    <Table columns={['When', 'Made by', 'Action', 'Target', 'Before → after']}>
      {entries.map((entry) => (
        <tr key={entry.id}>
          <td class="nowrap">
            <Time value={entry.at} />
          </td>
          <MadeBy entry={entry} />
          <td>
            {actionWords(entry.action)}
            <div class="mono muted">{entry.action}</div>
          </td>
          <td class="mono long">{entry.target}</td>
          <td>
            {entry.before === null && entry.after !== null && <div class="muted">Made:</div>}
            {entry.after === null && entry.before !== null && <div class="muted">Removed:</div>}
            <Changes entry={entry} />
          </td>
        </tr>
      ))}
    </Table>
  );
}

/** Who made a change: an admin, or a store (its event, or its grace period). */
function MadeBy({ entry }: { entry: AuditEntry }) {
  const { by, detail } = madeByWords(entry);
  return (
    <td>
      {by}
      {detail !== null && <div class="mono muted long">{detail}</div>}
    </td>
  );
}

/** Who may be chosen: the named admins for an owner, who may list them; else an id typed. */
function AdminFilter({ value, onValue }: { value: string; onValue: (value: string) => void }) {
  const api = useApi();
  const can = useCan();
  const admins = useLoad(
    async () => (can('listAdmins') ? (await api.call('listAdmins')).admins : null),
    [api, can],
  );
  if (admins.data === null) {
    return (
      <Field label="Admin id" hint="0: the bootstrap owner.">
        <Input inputMode="numeric" pattern="[0-9]*" value={value} onValue={onValue} />
      </Field>
    );
  }
  return (
    <Field label="Admin">
      <select value={value} onChange={(event) => onValue(event.currentTarget.value)}>
        <option value="">Every admin</option>
        <option value="0">Bootstrap owner (ADMIN_TOKENS)</option>
        {admins.data.map((admin) => (
          <option key={admin.id} value={String(admin.id)}>
            {adminWords(admin)}
          </option>
        ))}
      </select>
    </Field>
  );
}

export function AuditLogPage() {
  const api = useApi();
  const [draft, setDraft] = useState<Filter>(NO_FILTER);
  const [filter, setFilter] = useState<Filter>(NO_FILTER);
  const [page, setPage] = useState(1);
  const log = useLoad(
    () => api.call('listAuditLog', { query: { ...queryOf(filter), page, per_page: PER_PAGE } }),
    [api, filter, page],
  );
  const exporting = useAction();
  const apply = (event: Event) => {
    event.preventDefault();
    setFilter(draft);
    setPage(1);
  };
  const set = (field: Exclude<keyof Filter, 'source'>) => (value: string) =>
    setDraft({ ...draft, [field]: value });
  return (
    <section aria-labelledby="audit-heading">
      <div class="title-row">
        <h1 id="audit-heading">Audit log</h1>
        <ReloadButton loaded={log} />
      </div>
      <p class="muted">
        Every change made through the management API and this console, and every license change a
        store's event made: who or what made it, what it changed, before and after. Secrets are
        never kept; license keys only as a fingerprint.
      </p>
      <form method="post" onSubmit={apply} class="filters" role="search">
        <Field label="Made by">
          <select
            value={draft.source}
            onChange={(event) =>
              setDraft({ ...draft, source: event.currentTarget.value as Filter['source'] })
            }
          >
            <option value="">Anyone</option>
            {auditSourceKinds.map((kind) => (
              <option key={kind} value={kind}>
                {SOURCE_WORDS[kind]}
              </option>
            ))}
          </select>
        </Field>
        <AdminFilter value={draft.admin} onValue={set('admin')} />
        <Field label="Action" hint="An operation id, such as updateLicense.">
          <Input spellcheck={false} value={draft.action} onValue={set('action')} />
        </Field>
        <Field label="Target" hint="product:12, license:key#…, or a kind: plan.">
          <Input spellcheck={false} value={draft.target} onValue={set('target')} />
        </Field>
        <Field label="From">
          <Input type="date" value={draft.from} onValue={set('from')} />
        </Field>
        <Field label="To" hint="Up to the end of this day.">
          <Input type="date" value={draft.to} onValue={set('to')} />
        </Field>
        <div class="field submit">
          <button type="submit">Filter</button>
          <button
            type="button"
            class="secondary"
            onClick={() => {
              setDraft(NO_FILTER);
              setFilter(NO_FILTER);
              setPage(1);
            }}
          >
            Clear
          </button>
        </div>
      </form>
      <div class="row">
        <button
          type="button"
          class="secondary"
          disabled={exporting.busy}
          onClick={() =>
            void exporting.run(async () => {
              const { blob, filename } = await api.file('exportAuditLog', {
                query: queryOf(filter),
              });
              saveFile(blob, filename);
              return `Saved ${filename}: the entries of this filter.`;
            })
          }
        >
          Download CSV
        </button>
      </div>
      <Outcome action={exporting} />
      <LoadView loaded={log} what="the audit log">
        {(found) =>
          found.entries.length === 0 ? (
            <Empty>No change matches.</Empty>
          ) : (
            <>
              <Entries entries={found.entries} />
              <Pager
                page={found.page}
                perPage={found.per_page}
                total={found.total}
                noun="changes"
                onPage={setPage}
              />
            </>
          )
        }
      </LoadView>
    </section>
  );
}
