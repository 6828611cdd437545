import { Readable } from 'node:stream';
import { readEddImport } from '../../../services/management/imports/sources/edd/edd-reader.js';
import { ImportSourceError } from '../../../services/management/imports/sources/source-error.js';
import type { ImportRecord } from '../../../services/management/imports/imported-license.js';
import { fixture, readAll } from './read-all.js';

const phpMyAdmin = () =>
  readAll(
    readEddImport({
      format: 'csv',
      licenses: fixture('edd/edd_licenses.csv'),
      activations: fixture('edd/edd_license_activations.csv'),
    }),
  );

const licenseOf = (records: ImportRecord[], id: string) =>
  records.find((record) => !('refused' in record) && record.source_id === id);

describe('the EDD Software Licensing reader', () => {
  it('reads a license with its price_id as the plan and its expiration in unix seconds', async () => {
    const records = await phpMyAdmin();
    expect(licenseOf(records, '1')).toEqual({
      source: 'edd',
      source_id: '1',
      line: 2,
      license_key: 'a1b2c3d4e5f6A7B8c9d0e1f2a3b4c5d6',
      product: '41',
      plan: '2',
      plan_hint: null,
      status: 'active',
      expires_at: '2026-01-01T00:00:00.000Z',
      activation_limit: null,
      customer: null,
      parent_key: null,
      activations: [
        { identifier: 'https://example.com', exempt: false, activated_at: null },
        { identifier: 'staging.example.com', exempt: true, activated_at: null },
      ],
    });
  });

  it('takes expiration 0 or NULL as lifetime and inactive as an active license', async () => {
    const records = await phpMyAdmin();
    expect(licenseOf(records, '2')).toMatchObject({
      status: 'active',
      expires_at: null,
      plan: null,
    });
    expect(licenseOf(records, '4')).toMatchObject({ expires_at: null });
  });

  it('maps disabled to suspended and expired to expired', async () => {
    const records = await phpMyAdmin();
    expect(licenseOf(records, '5')).toMatchObject({
      status: 'suspended',
      expires_at: '2023-11-14T22:13:20.000Z',
    });
    expect(licenseOf(records, '6')).toMatchObject({ status: 'expired' });
  });

  it('gives a bundle child its parent key, even when the child comes first', async () => {
    const records = await phpMyAdmin();
    const order = records.map((record) => record.source_id);
    expect(licenseOf(records, '4')).toMatchObject({ parent_key: 'bundle-key-0003', line: 4 });
    expect(order.indexOf('4')).toBe(order.indexOf('3') + 1);
    expect(licenseOf(records, '3')).toMatchObject({
      parent_key: null,
      activations: [{ identifier: 'shop.example.org', exempt: false, activated_at: null }],
    });
  });

  it('refuses each malformed row with a plain reason and reads on', async () => {
    const records = await phpMyAdmin();
    const reasons = records.flatMap((record) =>
      'refused' in record ? [[record.line, record.reason]] : [],
    );
    expect(reasons).toEqual([
      [7, 'activations file: site_name is missing'],
      [8, 'status is not one of active, inactive, expired, disabled: draft'],
      [9, 'expiration is not a time in unix seconds: next year'],
      [10, 'license_key is missing'],
      [11, 'parent license 99 is in no row of the licenses file'],
      [
        6,
        'activations file: 1 activation for license_id 55, which is in no row of the licenses file',
      ],
    ]);
  });

  it('keeps only current activations: a deactivated site (activated 0) is left out', async () => {
    const records = await phpMyAdmin();
    const sites = records.flatMap((record) =>
      'refused' in record ? [] : record.activations.map((activation) => activation.identifier),
    );
    expect(sites).not.toContain('old.example.com');
  });

  it("reads wp db query's tab-separated output, its escapes and its NULLs", async () => {
    const records = await readAll(
      readEddImport({
        format: 'tsv',
        licenses: fixture('edd/edd_licenses.tsv'),
        activations: fixture('edd/edd_license_activations.tsv'),
      }),
    );
    expect(records).toMatchObject([
      { license_key: 'tab\tin-key', plan: '2', expires_at: '2026-01-01T00:00:00.000Z' },
      { license_key: 'plain-key-0002', plan: null, expires_at: null },
    ]);
    expect(records[1]).toMatchObject({ activations: [{ identifier: 'example.com' }] });
  });

  it('refuses a limit below the activations when the export adds activation_limit', async () => {
    const licenses =
      'id,license_key,status,download_id,price_id,expiration,parent,activation_limit\n';
    const csv = `${licenses}1,K-1,active,41,1,0,0,1\n2,K-2,active,41,1,0,0,-1\n`;
    const activations =
      'site_name,license_id,activated,is_local\na.example,1,1,0\nb.example,1,1,0\n';
    const records = await readAll(
      readEddImport({
        format: 'csv',
        licenses: Readable.from([csv]),
        activations: Readable.from([activations]),
      }),
    );
    expect(records.map((record) => ('refused' in record ? record.reason : 'taken'))).toEqual([
      'activation_limit 1 is below its 2 activations',
      'activation_limit is negative: -1',
    ]);
  });

  it('stops with a plain message when a table column is missing from the header', async () => {
    const csv = 'id,license_key,status,download_id\n1,K,active,41\n';
    await expect(
      readAll(readEddImport({ format: 'csv', licenses: Readable.from([csv]) })),
    ).rejects.toThrow(
      new ImportSourceError(
        'The edd_licenses file has no column price_id, expiration, parent in its header row',
      ),
    );
  });

  it('joins 200,000 activations in any order to their licenses', async () => {
    const count = 50_000;
    const order = (i: number) => (i * 7919) % (count * 4);
    async function* activations() {
      yield 'site_id,site_name,license_id,activated,is_local\n';
      // In chunks of 1,000 rows, as a file is read, rather than a chunk a row.
      for (let start = 0; start < count * 4; start += 1000) {
        let chunk = '';
        for (let i = start; i < start + 1000; i += 1) {
          const at = order(i);
          chunk += `${i + 1},site-${at}.example,${(at % count) + 1},1,0\n`;
        }
        yield chunk;
      }
    }
    async function* licenses() {
      yield 'id,license_key,status,download_id,price_id,expiration,parent\n';
      let chunk = '';
      for (let id = 1; id <= count; id += 1) chunk += `${id},KEY-${id},active,41,1,0,0\n`;
      yield chunk;
    }
    let activationsSeen = 0;
    let licensesSeen = 0;
    let notFour = 0;
    const records = readEddImport({
      format: 'csv',
      licenses: Readable.from(licenses()),
      activations: Readable.from(activations()),
    });
    for await (const record of records) {
      if ('refused' in record) throw new Error(record.reason);
      licensesSeen += 1;
      activationsSeen += record.activations.length;
      if (record.activations.length !== 4) notFour += 1;
    }
    expect([licensesSeen, activationsSeen, notFour]).toEqual([count, count * 4, 0]);
  });
});
