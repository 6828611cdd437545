import { Readable } from 'node:stream';
import { readCsvImport } from '../../../services/management/imports/sources/csv/csv-reader.js';
import {
  CSV_LICENSE_COLUMNS,
  CSV_TEMPLATE,
} from '../../../services/management/imports/sources/csv/csv-columns.js';
import { ImportSourceError } from '../../../services/management/imports/sources/source-error.js';
import { byLine, fixture, readAll } from './read-all.js';

const text = (content: string) => Readable.from([Buffer.from(content)]);

describe('the CSV reader', () => {
  it('keeps a key byte for byte, spaces and letter case included', async () => {
    const records = await readAll(readCsvImport({ licenses: fixture('csv/licenses.csv') }));
    expect(byLine(records, 2)).toEqual({
      source: 'csv',
      source_id: ' Key-Padded-1 ',
      line: 2,
      license_key: ' Key-Padded-1 ',
      product: '12',
      plan: 'pro',
      plan_hint: null,
      status: 'active',
      expires_at: '2027-01-31T00:00:00.000Z',
      activation_limit: 3,
      customer: { email: 'ann@example.com', name: 'Ann Example' },
      parent_key: null,
      activations: [{ identifier: 'example.com', exempt: false, activated_at: null }],
    });
  });

  it('takes an empty status as active, an empty expiry as lifetime and 0 as unlimited', async () => {
    const records = await readAll(readCsvImport({ licenses: fixture('csv/licenses.csv') }));
    expect(byLine(records, 3)).toMatchObject({
      status: 'active',
      expires_at: null,
      activation_limit: 0,
      plan: null,
      customer: null,
      activations: [],
    });
  });

  it('reads a time with its zone as UTC, and every identifier column as an activation', async () => {
    const records = await readAll(readCsvImport({ licenses: fixture('csv/licenses.csv') }));
    expect(byLine(records, 4)).toMatchObject({
      status: 'suspended',
      expires_at: '2026-05-01T08:00:00.000Z',
      activation_limit: null,
      customer: { email: 'bob@example.com', name: null },
      activations: [{ identifier: 'a.example' }, { identifier: 'b.example' }],
    });
  });

  it('refuses each malformed row with a plain reason and reads on', async () => {
    const records = await readAll(readCsvImport({ licenses: fixture('csv/licenses.csv') }));
    const reasons = records.flatMap((record) =>
      'refused' in record ? [[record.line, record.reason]] : [],
    );
    expect(reasons).toEqual([
      [5, 'expires_at is not a date: 2024-13-45'],
      [6, 'status is not one of active, expired, suspended, revoked, cancelled: paused'],
      [7, 'activation_limit is negative: -2'],
      [8, 'activation_limit 1 is below its 2 activations'],
      [9, 'license_key is missing'],
      [10, 'product_id is missing'],
      [11, 'license_key appears again (first in row 3)'],
    ]);
    expect(byLine(records, 12)).toMatchObject({
      license_key: 'QUOTED,KEY-11',
      status: 'expired',
      expires_at: '2020-02-29T23:59:59.000Z',
      customer: { email: null, name: 'Example, Carol' },
    });
  });

  it('refuses a date the calendar does not have', async () => {
    const csv = 'license_key,product_id,expires_at\nK-1,12,2023-02-30\n';
    const [record] = await readAll(readCsvImport({ licenses: text(csv) }));
    expect(record).toMatchObject({ refused: true, reason: 'expires_at is not a date: 2023-02-30' });
  });

  it('joins a second file of activations by key, in any order, and refuses those of no license', async () => {
    const records = await readAll(
      readCsvImport({
        licenses: fixture('csv/split-licenses.csv'),
        activations: fixture('csv/split-activations.csv'),
      }),
    );
    expect(
      records.map((record) => ('refused' in record ? record.reason : record.activations)),
    ).toEqual([
      'activations file: identifier is missing',
      [{ identifier: 'x.example', exempt: false, activated_at: null }],
      [
        { identifier: 'z.example', exempt: false, activated_at: null },
        { identifier: 'y.example', exempt: false, activated_at: null },
      ],
      'activations file: 1 activation for license_key ORPHAN-9, which is in no row of the licenses file',
    ]);
  });

  it('stops with a plain message when the header lacks a required column', async () => {
    await expect(
      readAll(readCsvImport({ licenses: fixture('csv/no-product-column.csv') })),
    ).rejects.toThrow(
      new ImportSourceError('The licenses file has no column product_id in its header row'),
    );
  });

  it('yields the rows before a broken quote, then stops saying where', async () => {
    const seen: string[] = [];
    const reading = (async () => {
      for await (const record of readCsvImport({ licenses: fixture('csv/broken-quote.csv') })) {
        if (!('refused' in record)) seen.push(record.license_key);
      }
    })();
    await expect(reading).rejects.toThrow(/The licenses file cannot be read past row 2/);
    expect(seen).toEqual(['A-1']);
  });

  it('offers a template of the documented columns, header only', () => {
    expect(CSV_TEMPLATE).toBe(`${CSV_LICENSE_COLUMNS.join(',')}\r\n`);
    expect(CSV_TEMPLATE.split('\r\n').filter(Boolean)).toHaveLength(1);
  });
});
