/**
 * What the console's client lets a call say, checked by the typecheck (never bundled, never
 * run): each line marked `@ts-expect-error` must not compile, or the typecheck fails.
 */
import type { LicenseDetail } from '../../../../../libs/contracts/index.js';
import type { AdminApi } from './admin-api.js';

export async function callsTheClientRefuses(api: AdminApi, file: File): Promise<void> {
  // @ts-expect-error an operation is named by its id, never by a path
  await api.call('/licenses');
  // @ts-expect-error the license key in the path is required
  await api.call('getLicense');
  // @ts-expect-error the path parameter is named as the route names it
  await api.call('getLicense', { params: { license_key: 'K' } });
  // @ts-expect-error a field the route's query does not have
  await api.call('searchLicenses', { query: { owner: 'x' } });
  // @ts-expect-error q is text; only text the route reads as a number may be given as one
  await api.call('searchLicenses', { query: { q: 5 } });
  // @ts-expect-error the body is the route's: a product has a title
  await api.call('createProduct', { body: { name: 'Plugin' } });
  // @ts-expect-error the answer is the route's: a license, not a number
  const answer: number = await api.call('getLicense', { params: { key: 'K' } });
  // @ts-expect-error metadata values are text
  await api.call('updateLicense', { params: { key: 'K' }, body: { metadata: { order: 5 } } });
  // @ts-expect-error a CSV export is a file, not a JSON answer
  await api.call('exportLicenses');
  // @ts-expect-error only an export answers a file
  await api.file('listAdmins');
  // @ts-expect-error only the upload takes a file
  await api.upload('createVersion', { params: { id: 1 }, fields: {}, file }, () => {});
  void answer;
}

export async function callsTheClientTakes(api: AdminApi, file: File): Promise<void> {
  const license: LicenseDetail = await api.call('getLicense', { params: { key: 'K/1' } });
  // Text the route reads as a number may be given as one; an absent value as null.
  await api.call('searchLicenses', {
    query: { page: 2, product_id: null, q: license.license_key },
  });
  await api.call('overview', { query: { days: 90 } });
  await api.call('updateLicense', { params: { key: 'K' }, body: { metadata: { order: 'A-1' } } });
  await api.file('exportAuditLog', { query: { admin: '0' } });
  await api.upload(
    'uploadFile',
    { params: { id: 1 }, fields: { plan_id: null, include_in_updates: true }, file },
    () => {},
  );
}
