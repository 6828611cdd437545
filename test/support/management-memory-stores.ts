import type {
  AdminRecord,
  AuditFilter,
  ManagementStores,
  StoredAuditRecord,
} from '../../services/management/stores.js';
import { deepCopy } from '../../bench/support/deep-copy.js';

function matches(entry: StoredAuditRecord, filter: AuditFilter): boolean {
  if (filter.admin !== undefined && entry.admin?.id !== filter.admin) return false;
  if (filter.source !== undefined && entry.source.kind !== filter.source) return false;
  if (filter.action !== undefined && entry.action !== filter.action) return false;
  if (filter.target !== undefined) {
    const whole = filter.target.includes(':');
    if (whole ? entry.target !== filter.target : !entry.target.startsWith(`${filter.target}:`)) {
      return false;
    }
  }
  if (filter.from !== undefined && entry.at < filter.from) return false;
  if (filter.to !== undefined && entry.at >= filter.to) return false;
  return true;
}

/**
 * The management API's stores in memory, with the semantics of the MongoDB ones
 * (test/integration/management-stores.test.ts runs the same contract against both): admin ids
 * from 1, the audit log newest first, copies in and out.
 */
export function memoryManagementStores(): ManagementStores {
  const admins = new Map<number, AdminRecord>();
  const audit: StoredAuditRecord[] = [];
  const reportedKeys = new Set<string>();
  let lastAdmin = 0;
  let lastEntry = 0;
  const copy = deepCopy;
  const active = (id: number) => {
    const admin = admins.get(id);
    return admin && !admin.retiring ? admin : undefined;
  };
  const newestFirst = (filter: AuditFilter) =>
    audit
      .filter((entry) => matches(entry, filter))
      .sort((a, b) => b.at.getTime() - a.at.getTime() || b.id.localeCompare(a.id));

  return {
    admins: {
      async create({ token, ...admin }) {
        const record: AdminRecord = {
          ...copy(admin),
          id: ++lastAdmin,
          tokens: [copy(token)],
          retiring: false,
        };
        admins.set(record.id, record);
        return copy(record);
      },
      async list() {
        return [...admins.values()]
          .filter((a) => !a.retiring)
          .sort((a, b) => a.id - b.id)
          .map(copy);
      },
      async find(id) {
        const admin = active(id);
        return admin ? copy(admin) : null;
      },
      async findByToken(tokenId) {
        const admin = [...admins.values()].find(
          (a) => !a.retiring && a.tokens.some((t) => t.id === tokenId),
        );
        return admin ? copy(admin) : null;
      },
      async countOwners() {
        return [...admins.values()].filter((a) => !a.retiring && a.role === 'owner').length;
      },
      async update(id, changes, onlyIfRole) {
        const admin = active(id);
        if (!admin || (onlyIfRole !== undefined && admin.role !== onlyIfRole)) return null;
        if (changes.name !== undefined) admin.name = changes.name;
        if (changes.role !== undefined) admin.role = changes.role;
        return copy(admin);
      },
      async retire(id) {
        const admin = active(id);
        if (!admin) return null;
        admin.retiring = true;
        return copy(admin);
      },
      async keep(id) {
        const admin = admins.get(id);
        if (admin) admin.retiring = false;
      },
      async remove(id) {
        if (admins.get(id)?.retiring) admins.delete(id);
      },
      async addToken(id, token, limit) {
        const admin = active(id);
        if (!admin || admin.tokens.length >= limit) return null;
        admin.tokens.push(copy(token));
        return copy(admin);
      },
      async revokeToken(id, tokenId) {
        const admin = active(id);
        const token = admin?.tokens.find((t) => t.id === tokenId);
        if (!admin || !token) return null;
        admin.tokens = admin.tokens.filter((t) => t.id !== tokenId);
        return copy(token);
      },
      async touchToken(tokenId, at) {
        for (const admin of admins.values()) {
          for (const token of admin.tokens) if (token.id === tokenId) token.last_used_at = at;
        }
      },
    },
    audit: {
      async record(entry) {
        audit.push({ ...copy(entry), id: String(++lastEntry).padStart(24, '0') });
      },
      async recordOnce(entries) {
        let written = 0;
        for (const { key, ...entry } of entries) {
          if (reportedKeys.has(key)) continue;
          reportedKeys.add(key);
          audit.push({ ...copy(entry), id: String(++lastEntry).padStart(24, '0') });
          written++;
        }
        return written;
      },
      async page(filter, page, perPage) {
        const all = newestFirst(filter);
        return {
          entries: all.slice((page - 1) * perPage, page * perPage).map(copy),
          total: all.length,
        };
      },
      async *each(filter) {
        for (const entry of newestFirst(filter)) yield copy(entry);
      },
    },
  };
}
