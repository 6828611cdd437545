import { EventEmitter } from 'node:events';
import type { Response } from 'express';
import {
  CSV_MEDIA_TYPE,
  attachment,
  csvField,
  csvLine,
  csvText,
  exportFilename,
  streamCsv,
  type CsvColumn,
} from '../../libs/http/csv/csv.js';
import { createLogger } from '../../libs/logging/index.js';
import { licenseColumns } from '../../libs/http/csv/csv-columns.js';
import { csvRecords, parseCsv } from '../support/csv.js';

/**
 * The CSV writer of the exports (libs/http/csv/csv.ts): RFC 4180 fields and lines, text a
 * spreadsheet would run as a formula made inert, and a stream that holds one batch at a time,
 * waits for a slow reader, and cuts off an export that fails half way.
 */

describe('RFC 4180 fields and lines', () => {
  test('a plain field is written as it is; a line ends with CRLF', () => {
    expect(csvLine(['abc', 'ü€😀', 'x y'])).toBe('abc,ü€😀,x y\r\n');
  });

  test('a field with a comma, a quote or a line break is quoted, its quotes doubled', () => {
    expect(csvField('a,b')).toBe('"a,b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField('two\nlines')).toBe('"two\nlines"');
    expect(csvField('cr\rhere')).toBe('"cr\rhere"');
  });

  test('null is an empty field; numbers and booleans are written as they are, never guarded', () => {
    expect(csvLine([null, 0, 12, -3, true, ''])).toBe(',0,12,-3,true,\r\n');
  });

  test.each(['=1+1', '+1', '-1', '@SUM(A1)', '\tcmd', '\rcmd', '=HYPERLINK("http://x","y")'])(
    'text starting as a formula would (%j) gets a quote before it',
    (text) => {
      const [field] = parseCsv(csvLine([text]))[0]!;
      expect(field).toBe(`'${text}`);
    },
  );

  test('a formula sign later in the text changes nothing', () => {
    expect(csvField('a=1')).toBe('a=1');
    expect(csvField('x-y@z')).toBe('x-y@z');
    expect(csvField('a;b=1')).toBe('"a;b=1"');
  });

  test('a field with a semicolon or a tab is quoted: a reader that splits there keeps it whole', () => {
    expect(csvField('a;b')).toBe('"a;b"');
    expect(csvField('a\tb')).toBe('"a\tb"');
  });

  test.each([
    ['x;=1+1', "x;'=1+1"],
    ['a;+1;-1;@SUM(A1)', "a;'+1;'-1;'@SUM(A1)"],
    ['=a;=b', "'=a;'=b"],
    ['a;;=1', "a;;'=1"],
    ['x;\tcmd', "x;'\tcmd"],
    ['x;\rcmd', "x;'\rcmd"],
    ['x;"=1+1', `x;'"=1+1`],
    ['x\t=1', "x\t'=1"],
    ['x\n=1', "x\n'=1"],
    ['x\r\n@A1', "x\r\n'@A1"],
    ['\r=1', "'\r'=1"],
    ['a,=1', 'a,=1'],
  ])(
    'a part after a `;`, a tab or a line break starting as a formula would (%j) gets a quote before it: %j',
    (text, written) => {
      const field = csvField(text);
      expect(field.startsWith('"')).toBe(true);
      expect(parseCsv(`${field}\r\n`)).toEqual([[written]]);
    },
  );

  test.each(['x;=1+1', 'a;"=2', 'x\n-1', 'x\r\n+1', 'x\t@A1', 'a,b;=c,d', '\r=1'])(
    'a reader that starts a cell at each `;`, tab and line break, quotes or not, sees no formula in %j',
    (text) => {
      const cells = csvLine(['K-1', text, '=z']).split(/[;\t\r\n]/);
      for (const cell of cells) expect(cell.replace(/^"*/, '')).not.toMatch(/^[=+\-@]/);
    },
  );

  test('whatever the text, what is written reads back as it was (inert formulas aside)', () => {
    const values = ['', ' ', '"', '""', ',', 'a\r\nb', 'a"b,c\nd', 'é', '\u2028', "'=x"];
    const rows = parseCsv(csvLine(values));
    expect(rows).toEqual([values]);
  });

  test('a text: the header row, then a line per row', () => {
    const columns: CsvColumn<{ a: string; b: number | null }>[] = [
      { header: 'a', value: (row) => row.a },
      { header: 'b', value: (row) => row.b },
    ];
    const text = csvText(columns, [
      { a: 'x', b: 1 },
      { a: 'y,z', b: null },
    ]);
    expect(text).toBe('a,b\r\nx,1\r\n"y,z",\r\n');
    expect(csvRecords(text)).toEqual([
      { a: 'x', b: '1' },
      { a: 'y,z', b: '' },
    ]);
  });

  test('an attachment is named with letters, digits, . - _ only', () => {
    expect(attachment('licenses-2026-06-01T12-00-00Z.csv')).toBe(
      'attachment; filename="licenses-2026-06-01T12-00-00Z.csv"',
    );
    expect(attachment('a"b\r\n.csv')).toBe('attachment; filename="a_b__.csv"');
    expect(exportFilename('licenses', new Date('2026-06-01T12:00:00.123Z'))).toBe(
      'licenses-2026-06-01T12-00-00Z.csv',
    );
  });

  test('a license row: the columns of the table, values as the API gives them', () => {
    const text = csvText(licenseColumns, [
      {
        license_key: 'K-1',
        status: 'active',
        product_id: 1,
        plan_id: 2,
        product: 'Plugin, Pro',
        plan: 'Single',
        activation_type: 'domain',
        activation_limit: 0,
        activations_used: 3,
        lease_seconds: null,
        exempt_identifiers: [],
        exempt_limit: 3,
        exempt_used: 0,
        expires_at: null,
        auto_renew: false,
        next_payment_at: null,
        last_check_at: '2026-06-01T12:00:00.000Z',
        last_check_ip: '192.0.2.1',
        check_count: 1,
        created_at: '2026-01-01T00:00:00.000Z',
        pending_plan: null,
        customer: { email: 'jane@example.com', name: '=cmd|x' },
        metadata: { order_id: 'A-1' },
        store: null,
        imported_from: null,
      },
    ]);
    expect(csvRecords(text)).toEqual([
      {
        license_key: 'K-1',
        customer_email: 'jane@example.com',
        customer_name: "'=cmd|x",
        product: 'Plugin, Pro',
        plan: 'Single',
        status: 'active',
        activations_used: '3',
        activation_limit: '0',
        expires_at: '',
        created_at: '2026-01-01T00:00:00.000Z',
        last_check_at: '2026-06-01T12:00:00.000Z',
      },
    ]);
  });
});

/** A response as streamCsv uses it: `write` refuses more once `room` lines are buffered. */
class FakeResponse extends EventEmitter {
  written: string[] = [];
  headers: Record<string, string> = {};
  statusCode = 0;
  ended = false;
  destroyed = false;
  constructor(public room = Infinity) {
    super();
  }
  status(code: number) {
    this.statusCode = code;
    return this;
  }
  setHeader(name: string, value: string) {
    this.headers[name.toLowerCase()] = value;
  }
  write(text: string) {
    this.written.push(text);
    return this.written.length < this.room;
  }
  end() {
    this.ended = true;
    this.emit('close');
  }
  destroy() {
    this.destroyed = true;
    this.emit('close');
  }
}

const silent = createLogger('test', 'silent');
const columns: CsvColumn<number>[] = [{ header: 'n', value: (n) => n }];

/** Batches of numbers, counting how many were asked for. */
function numbers(batches: number[][], failAt?: number) {
  const read = { count: 0, returned: false };
  async function* generate() {
    try {
      for (const [i, batch] of batches.entries()) {
        if (i === failAt) throw new Error('the service did not answer');
        read.count++;
        yield batch;
      }
    } finally {
      read.returned = true;
    }
  }
  return { read, batches: generate() };
}

describe('streaming an export', () => {
  test('the header row, then every batch, then the end; text/csv, an attachment', async () => {
    const res = new FakeResponse();
    const { batches } = numbers([[1, 2], [3], []]);
    await streamCsv(res as unknown as Response, {
      filename: 'n.csv',
      columns,
      batches,
      logger: silent,
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe(CSV_MEDIA_TYPE);
    expect(res.headers['content-disposition']).toBe('attachment; filename="n.csv"');
    expect(res.written.join('')).toBe('n\r\n1\r\n2\r\n3\r\n');
    expect(res.ended).toBe(true);
  });

  test('a failure before the first batch is thrown, before anything is sent', async () => {
    const res = new FakeResponse();
    const { batches } = numbers([[1]], 0);
    await expect(
      streamCsv(res as unknown as Response, {
        filename: 'n.csv',
        columns,
        batches,
        logger: silent,
      }),
    ).rejects.toThrow('the service did not answer');
    expect(res.statusCode).toBe(0);
    expect(res.written).toEqual([]);
  });

  test('a failure after rows were sent cuts the response off: never a short file that looks whole', async () => {
    const res = new FakeResponse();
    const { batches } = numbers([[1], [2], [3]], 2);
    await streamCsv(res as unknown as Response, {
      filename: 'n.csv',
      columns,
      batches,
      logger: silent,
    });
    expect(res.written.join('')).toBe('n\r\n1\r\n2\r\n');
    expect(res.destroyed).toBe(true);
    expect(res.ended).toBe(false);
  });

  test('a full buffer holds the next batch back until the client has read (drain)', async () => {
    const res = new FakeResponse(1);
    const { read, batches } = numbers([[1], [2], [3]]);
    const streaming = streamCsv(res as unknown as Response, {
      filename: 'n.csv',
      columns,
      batches,
      logger: silent,
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(read.count).toBe(1);
    res.emit('drain');
    await new Promise((resolve) => setImmediate(resolve));
    expect(read.count).toBe(2);
    // The client reads everything from now on.
    res.room = Infinity;
    res.emit('drain');
    await streaming;
    expect(read.count).toBe(3);
    expect(res.written.join('')).toBe('n\r\n1\r\n2\r\n3\r\n');
  });

  test('a client that goes away stops the reading', async () => {
    const res = new FakeResponse(1);
    const { read, batches } = numbers([[1], [2], [3]]);
    const streaming = streamCsv(res as unknown as Response, {
      filename: 'n.csv',
      columns,
      batches,
      logger: silent,
    });
    await new Promise((resolve) => setImmediate(resolve));
    res.emit('close');
    await streaming;
    expect(read.count).toBe(1);
    expect(read.returned).toBe(true);
    expect(res.ended).toBe(false);
  });
});
